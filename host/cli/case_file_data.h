#pragma once
// A case file's case as data: its sizes evaluated from the parameters (buffers, bytes,
// threadgroup memory, grid), the contents its buffers start with, and typed access to elements
// of any of the case file's element types. What CaseFileRun (case_file_run.h) dispatches and
// compares, and what CaseFileSpec checks a case's validity and memory with.
#include <cstdint>
#include <string>
#include <vector>

#include "host/cli/case_file.h"
#include "kernels/spec/compare.h"
#include "metalsim/Metal.hpp"

namespace metalsim::cli {

// Calls f(T{}) with T the C++ type of `t`.
template <class F>
decltype(auto) with_type(ElementType t, F&& f) {
  switch (t) {
    case ElementType::f32: return f(float{});
    case ElementType::f16: return f(spec::half_t{});
    case ElementType::i8: return f(int8_t{});
    case ElementType::u8: return f(uint8_t{});
    case ElementType::i16: return f(int16_t{});
    case ElementType::u16: return f(uint16_t{});
    case ElementType::i32: return f(int32_t{});
    case ElementType::u32: return f(uint32_t{});
    case ElementType::i64: return f(int64_t{});
    case ElementType::u64: return f(uint64_t{});
  }
  return f(float{});
}

// A case's sizes, evaluated from its parameters.
struct Shape {
  std::vector<size_t> counts;   // by buffer, in elements
  std::vector<size_t> offsets;  // by buffer, then by alias: setBuffer's offset in bytes
  std::vector<Bytes> bytes;     // by bytes binding
  std::vector<uint32_t> threadgroup_lengths;
  MTL::Size grid, threadgroup;
};

// The sizes of `f`'s case `p` dispatched as `d` (the case's or its reference's dispatch).
// Throws ExpressionError (an expression) or CaseFileError (a negative size).
Shape evaluate_shape(const CaseFile& f, const spec::Params& p, const Dispatch& d);
// The bytes a buffer starts with: its fill (seeded from `seed` and the buffer's index), or
// poison for an output. Throws CaseFileError when a file fill has the wrong size.
Bytes initial_contents(const BufferDecl& b, size_t count, uint64_t seed);
// Every element of `bytes` as a double.
std::vector<double> as_doubles(const BufferDecl& b, const Bytes& bytes, size_t count);
// One element in words, every digit that tells it from its neighbours ("0.162790775", "-3").
std::string format_value(ElementType type, const void* data, size_t i);
// The first element at which two runs' copies of output `b` differ, in words; "" if none.
std::string first_difference(const BufferDecl& b, const void* x, const void* y, size_t count);
// The tolerance of an output of type `t` when the case file gives none.
spec::Tolerance default_tolerance(ElementType t);

}  // namespace metalsim::cli
