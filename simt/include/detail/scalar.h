#pragma once
// MSL scalar type names (spec 2.1). `half` is GCC's built-in _Float16: IEEE binary16, rounded after
// every operation, 2 bytes, trivially copyable, constexpr, and a built-in arithmetic type, so that
// `cond ? h : 0` and the usual arithmetic conversions behave as in MSL:
//   half op half -> half, half op int -> half, half op float -> float.
#include <cstddef>
#include <cstdint>

namespace metal {

using uchar = unsigned char;
using ushort = unsigned short;
using uint = unsigned int;
using ulong = unsigned long;  // 64-bit on LP64 Linux, as in MSL
using half = _Float16;
using std::ptrdiff_t;
using std::size_t;

}  // namespace metal
