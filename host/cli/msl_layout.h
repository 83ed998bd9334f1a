#pragma once
// MSL's memory layout of the values a case file writes: setBytes structs (scalars, bool,
// vectors, packed vectors, arrays and nested structs) and function constants. The one place
// that knows MSL's sizes and alignments (the MSL specification's tables of scalar and vector
// types, "Alignment and Size"):
//   scalar           size = alignment = its size (bool 1, half 2, float 4, long 8, ...)
//   vector T2, T4    size = alignment = lanes * sizeof(T)
//   vector T3        size = alignment = 4 * sizeof(T)           (float3: 16 bytes aligned 16)
//   packed_TN        size = N * sizeof(T), alignment sizeof(T)   (packed_float3: 12, aligned 4)
//   array T[n]       size = n * sizeof(T), alignment of T
//   struct           each field at the next multiple of its alignment; alignment the largest
//                    of its fields'; size rounded up to a multiple of that alignment
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "host/cli/expression.h"

namespace metalsim::cli {

// The element types a buffer or a bytes field may have, as MSL names them.
enum class ElementType { f32, f16, i8, u8, i16, u16, i32, u32, i64, u64 };
// "float", "half", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong".
std::string_view element_type_name(ElementType t);
bool parse_element_type(std::string_view name, ElementType& out);
size_t element_size(ElementType t);

using Bytes = std::vector<unsigned char>;

// A scalar (bool or an element type), a vector of 2 to 4 lanes (packed or not), or an array of
// either: "float", "bool", "uint3", "packed_half3", "float2[4]".
struct MslType {
  ElementType scalar = ElementType::u32;
  bool boolean = false;  // bool: stored as one byte, 0 or 1
  uint32_t lanes = 1;    // 2 to 4: a vector
  bool packed = false;   // packed_TN
  uint32_t array = 0;    // > 0: an array of this many scalars or vectors

  std::string name() const;  // as MSL spells it
  MslType element() const;   // the array's element (itself when no array)
  size_t values() const;     // scalars in memory order: lanes x elements
};
// false when `text` names no such type.
bool parse_msl_type(std::string_view text, MslType& out);

struct SizeAlign {
  size_t size = 0, align = 1;
};
SizeAlign msl_size_align(const MslType& t);

// A field of a setBytes struct: a typed value (one expression per scalar, in memory order), or
// a nested struct of fields.
struct BytesField {
  std::string name;
  std::string path;  // where the case file wrote its values: "bytes[0].fields[2].value"
  MslType type;
  std::vector<Expression> values;
  std::vector<BytesField> fields;  // non-empty: a nested struct (type and values unused)
};

struct StructLayout {
  std::vector<size_t> offsets;  // by field
  size_t size = 0, align = 1;
};
StructLayout layout_struct(const std::vector<BytesField>& fields);
SizeAlign field_size_align(const BytesField& f);

// The struct's bytes (padding zero), each value evaluated in `scope`. Throws ExpressionError
// naming the field's path on an evaluation error or a float where an integer is needed.
Bytes pack_struct(const std::vector<BytesField>& fields, const Scope& scope);

// Every expression of the fields, nested ones too, with its field's path.
void for_each_expression(const std::vector<BytesField>& fields,
                         const std::function<void(const Expression&, const std::string&)>& f);

}  // namespace metalsim::cli
