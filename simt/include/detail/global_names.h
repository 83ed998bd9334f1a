#pragma once
// In MSL the scalar, vector and matrix type names are the language's own: they are visible at
// global scope before any `using namespace metal;` (ggml-common.h declares `typedef half
// ggml_half; typedef half2 ggml_half2;` right after `#include <metal_stdlib>`). metalsim defines
// them in namespace metal, so they are re-declared here as global typedefs of the same types. A
// typedef may repeat one of the same type (glibc's `uint`, `ushort`, `ulong`), and a global name
// and the metal:: one found through `using namespace metal;` name the same type, so neither is an
// error nor ambiguous.
#include "detail/bfloat.h"
#include "detail/matrix.h"
#include "detail/scalar.h"
#include "detail/vec.h"

typedef metal::uchar uchar;
typedef metal::ushort ushort;
typedef metal::uint uint;
typedef metal::ulong ulong;
typedef metal::half half;
typedef metal::bfloat bfloat;

#define METALSIM_GLOBAL_VEC_NAMES(T)                  \
  typedef metal::T##2 T##2;                           \
  typedef metal::T##3 T##3;                           \
  typedef metal::T##4 T##4;                           \
  typedef metal::packed_##T##2 packed_##T##2;         \
  typedef metal::packed_##T##3 packed_##T##3;         \
  typedef metal::packed_##T##4 packed_##T##4;
METALSIM_GLOBAL_VEC_NAMES(bool)
METALSIM_GLOBAL_VEC_NAMES(char)
METALSIM_GLOBAL_VEC_NAMES(uchar)
METALSIM_GLOBAL_VEC_NAMES(short)
METALSIM_GLOBAL_VEC_NAMES(ushort)
METALSIM_GLOBAL_VEC_NAMES(int)
METALSIM_GLOBAL_VEC_NAMES(uint)
METALSIM_GLOBAL_VEC_NAMES(long)
METALSIM_GLOBAL_VEC_NAMES(ulong)
METALSIM_GLOBAL_VEC_NAMES(half)
METALSIM_GLOBAL_VEC_NAMES(bfloat)
METALSIM_GLOBAL_VEC_NAMES(float)
#undef METALSIM_GLOBAL_VEC_NAMES

#define METALSIM_GLOBAL_MATRIX_NAMES_R(T, C) \
  typedef metal::T##C##x2 T##C##x2;          \
  typedef metal::T##C##x3 T##C##x3;          \
  typedef metal::T##C##x4 T##C##x4;
#define METALSIM_GLOBAL_MATRIX_NAMES(T)  \
  METALSIM_GLOBAL_MATRIX_NAMES_R(T, 2)   \
  METALSIM_GLOBAL_MATRIX_NAMES_R(T, 3)   \
  METALSIM_GLOBAL_MATRIX_NAMES_R(T, 4)
METALSIM_GLOBAL_MATRIX_NAMES(float)
METALSIM_GLOBAL_MATRIX_NAMES(half)
#undef METALSIM_GLOBAL_MATRIX_NAMES
#undef METALSIM_GLOBAL_MATRIX_NAMES_R
