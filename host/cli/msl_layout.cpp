#include "host/cli/msl_layout.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

namespace metalsim::cli {
namespace {

struct TypeRow {
  ElementType type;
  const char* name;
  size_t size;
};
constexpr TypeRow kTypes[] = {
    {ElementType::f32, "float", 4}, {ElementType::f16, "half", 2},  {ElementType::i8, "char", 1},
    {ElementType::u8, "uchar", 1},  {ElementType::i16, "short", 2}, {ElementType::u16, "ushort", 2},
    {ElementType::i32, "int", 4},   {ElementType::u32, "uint", 4},  {ElementType::i64, "long", 8},
    {ElementType::u64, "ulong", 8},
};

const TypeRow& row(ElementType t) {
  for (const TypeRow& r : kTypes)
    if (r.type == t) return r;
  return kTypes[0];
}

size_t scalar_size(const MslType& t) { return t.boolean ? 1 : element_size(t.scalar); }

size_t round_up(size_t n, size_t align) { return (n + align - 1) / align * align; }

template <class T>
void store(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

// One scalar of type `t` (its scalar type) at `at`. C's conversions, except that a float
// value for an integer type is an error (a case file converts with int(...)).
void store_scalar(const MslType& t, const Value& v, unsigned char* at) {
  if (t.boolean) return store<uint8_t>(at, v.truthy() ? 1 : 0);
  const bool floating = t.scalar == ElementType::f32 || t.scalar == ElementType::f16;
  if (!floating && v.is_float)
    throw ExpressionError("gives " + v.str() + ", a float, for " + std::string(row(t.scalar).name) +
                          " (convert with int(...))");
  switch (t.scalar) {
    case ElementType::f32: return store<float>(at, float(v.as_double()));
    case ElementType::f16: return store<_Float16>(at, _Float16(v.as_double()));
    case ElementType::i8: return store<int8_t>(at, int8_t(v.integer));
    case ElementType::u8: return store<uint8_t>(at, uint8_t(v.integer));
    case ElementType::i16: return store<int16_t>(at, int16_t(v.integer));
    case ElementType::u16: return store<uint16_t>(at, uint16_t(v.integer));
    case ElementType::i32: return store<int32_t>(at, int32_t(v.integer));
    case ElementType::u32: return store<uint32_t>(at, uint32_t(v.integer));
    case ElementType::i64: return store<int64_t>(at, v.integer);
    case ElementType::u64: return store<uint64_t>(at, uint64_t(v.integer));
  }
}

// The values of a scalar, vector or array field at `at`: each vector's lanes at consecutive
// scalars, each array element at its stride.
void write_values(const BytesField& f, const Scope& scope, unsigned char* at) {
  const size_t scalar = scalar_size(f.type);
  const size_t stride = msl_size_align(f.type.element()).size;
  for (size_t i = 0; i < f.values.size(); ++i) {
    const size_t element = i / f.type.lanes, lane = i % f.type.lanes;
    try {
      store_scalar(f.type, f.values[i].value(scope), at + element * stride + lane * scalar);
    } catch (const ExpressionError& e) {
      throw ExpressionError(f.path + ": " + e.what());
    }
  }
}

void write_struct(const std::vector<BytesField>& fields, const Scope& scope, unsigned char* at) {
  const StructLayout layout = layout_struct(fields);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].fields.empty()) write_values(fields[i], scope, at + layout.offsets[i]);
    else write_struct(fields[i].fields, scope, at + layout.offsets[i]);
  }
}

}  // namespace

std::string_view element_type_name(ElementType t) { return row(t).name; }
size_t element_size(ElementType t) { return row(t).size; }
bool parse_element_type(std::string_view name, ElementType& out) {
  for (const TypeRow& r : kTypes)
    if (name == r.name) {
      out = r.type;
      return true;
    }
  // MSL's fixed-width names, which ggml declares its function constants with.
  static constexpr std::pair<const char*, ElementType> kFixedWidth[] = {
      {"int8_t", ElementType::i8},    {"uint8_t", ElementType::u8},  {"int16_t", ElementType::i16},
      {"uint16_t", ElementType::u16}, {"int32_t", ElementType::i32}, {"uint32_t", ElementType::u32},
      {"int64_t", ElementType::i64},  {"uint64_t", ElementType::u64}};
  for (const auto& [alias, type] : kFixedWidth)
    if (name == alias) {
      out = type;
      return true;
    }
  return false;
}

std::string MslType::name() const {
  std::string s = packed ? "packed_" : "";
  s += boolean ? "bool" : element_type_name(scalar);
  if (lanes > 1) s += std::to_string(lanes);
  if (array > 0) s += "[" + std::to_string(array) + "]";
  return s;
}

MslType MslType::element() const {
  MslType e = *this;
  e.array = 0;
  return e;
}

size_t MslType::values() const { return lanes * std::max<size_t>(array, 1); }

bool parse_msl_type(std::string_view text, MslType& out) {
  MslType t;
  if (const size_t open = text.find('['); open != std::string_view::npos) {
    if (text.back() != ']') return false;
    const std::string_view count = text.substr(open + 1, text.size() - open - 2);
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), t.array);
    if (ec != std::errc() || end != count.data() + count.size() || t.array == 0) return false;
    text = text.substr(0, open);
  }
  if (text.starts_with("packed_")) {
    t.packed = true;
    text.remove_prefix(7);
  }
  if (!text.empty() && text.back() >= '2' && text.back() <= '4') {
    t.lanes = uint32_t(text.back() - '0');
    text.remove_suffix(1);
  }
  if (t.packed && t.lanes == 1) return false;  // packed_ names vectors only
  t.boolean = text == "bool";
  if (!t.boolean && !parse_element_type(text, t.scalar)) return false;
  if (t.boolean && t.packed) return false;  // MSL has no packed_boolN
  out = t;
  return true;
}

SizeAlign msl_size_align(const MslType& t) {
  const size_t scalar = scalar_size(t);
  SizeAlign one{scalar, scalar};
  if (t.lanes > 1 && t.packed) one = {t.lanes * scalar, scalar};
  else if (t.lanes > 1) one.size = one.align = (t.lanes == 3 ? 4 : t.lanes) * scalar;
  if (t.array > 0) one.size *= t.array;
  return one;
}

SizeAlign field_size_align(const BytesField& f) {
  if (f.fields.empty()) return msl_size_align(f.type);
  const StructLayout s = layout_struct(f.fields);
  return {s.size, s.align};
}

StructLayout layout_struct(const std::vector<BytesField>& fields) {
  StructLayout out;
  size_t end = 0;
  for (const BytesField& f : fields) {
    const SizeAlign sa = field_size_align(f);
    const size_t offset = round_up(end, sa.align);
    out.offsets.push_back(offset);
    end = offset + sa.size;
    out.align = std::max(out.align, sa.align);
  }
  out.size = round_up(end, out.align);
  return out;
}

Bytes pack_struct(const std::vector<BytesField>& fields, const Scope& scope) {
  Bytes out(layout_struct(fields).size, 0);
  write_struct(fields, scope, out.data());
  return out;
}

void for_each_expression(const std::vector<BytesField>& fields,
                         const std::function<void(const Expression&, const std::string&)>& f) {
  for (const BytesField& field : fields) {
    for (const Expression& e : field.values) f(e, field.path);
    for_each_expression(field.fields, f);
  }
}

}  // namespace metalsim::cli
