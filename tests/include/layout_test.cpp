// sizeof and alignof of every MSL scalar, vector, packed vector and matrix type against the MSL
// specification (tables 2.1, 2.2, 2.3 and section 2.2.3), and trivial copyability.
#include <gtest/gtest.h>

#include <type_traits>

#include <metal_stdlib>

using namespace metal;

namespace {

template <class T>
constexpr bool layout(size_t size, size_t align) {
  return sizeof(T) == size && alignof(T) == align;
}
// Vectors, and structs holding them, copy as bytes (buffers, setBytes, as_type): trivially
// copy-constructible and destructible, which is also what passes them in registers. g++ also
// calls them std::is_trivially_copyable; Clang does not, because copying a swizzle member of the
// storage union selects the swizzle's element-wise assignment (`v.xz = w.xz` writes x and z
// only), which is not trivial (detail/vec.h).
template <class T>
constexpr bool copies_as_bytes() {
#if defined(__clang__)
  return std::is_trivially_copy_constructible_v<T> && std::is_trivially_destructible_v<T>;
#else
  return std::is_trivially_copyable_v<T>;
#endif
}
// vec<T,N>: N*sizeof(T) rounded to a power of two, aligned to its size.
#define VEC_LAYOUT(T, s)                                            \
  static_assert(layout<T>(s, s));                                   \
  static_assert(layout<T##2>(2 * s, 2 * s), #T "2");                \
  static_assert(layout<T##3>(4 * s, 4 * s), #T "3");                \
  static_assert(layout<T##4>(4 * s, 4 * s), #T "4");                \
  static_assert(layout<packed_##T##2>(2 * s, s), "packed_" #T "2"); \
  static_assert(layout<packed_##T##3>(3 * s, s), "packed_" #T "3"); \
  static_assert(layout<packed_##T##4>(4 * s, s), "packed_" #T "4"); \
  static_assert(copies_as_bytes<T##3>() && copies_as_bytes<packed_##T##3>());
VEC_LAYOUT(bool, 1)
VEC_LAYOUT(char, 1)
VEC_LAYOUT(uchar, 1)
VEC_LAYOUT(short, 2)
VEC_LAYOUT(ushort, 2)
VEC_LAYOUT(int, 4)
VEC_LAYOUT(uint, 4)
VEC_LAYOUT(long, 8)
VEC_LAYOUT(ulong, 8)
VEC_LAYOUT(half, 2)
VEC_LAYOUT(bfloat, 2)
VEC_LAYOUT(float, 4)

// Matrices: C columns of vec<T,R>.
#define MATRIX_LAYOUT(T, C, R, size, align) \
  static_assert(layout<T##C##x##R>(size, align), #T #C "x" #R);
MATRIX_LAYOUT(float, 2, 2, 16, 8)
MATRIX_LAYOUT(float, 2, 3, 32, 16)
MATRIX_LAYOUT(float, 2, 4, 32, 16)
MATRIX_LAYOUT(float, 3, 2, 24, 8)
MATRIX_LAYOUT(float, 3, 3, 48, 16)
MATRIX_LAYOUT(float, 3, 4, 48, 16)
MATRIX_LAYOUT(float, 4, 2, 32, 8)
MATRIX_LAYOUT(float, 4, 3, 64, 16)
MATRIX_LAYOUT(float, 4, 4, 64, 16)
MATRIX_LAYOUT(half, 2, 2, 8, 4)
MATRIX_LAYOUT(half, 2, 3, 16, 8)
MATRIX_LAYOUT(half, 2, 4, 16, 8)
MATRIX_LAYOUT(half, 3, 2, 12, 4)
MATRIX_LAYOUT(half, 3, 3, 24, 8)
MATRIX_LAYOUT(half, 3, 4, 24, 8)
MATRIX_LAYOUT(half, 4, 2, 16, 4)
MATRIX_LAYOUT(half, 4, 3, 32, 8)
MATRIX_LAYOUT(half, 4, 4, 32, 8)

// A struct of the kind kernels keep in device buffers copies as bytes.
struct Params {
  float4 a;
  packed_float3 b;
  half2 c;
  float4x4 m;
};
static_assert(copies_as_bytes<Params>());
static_assert(copies_as_bytes<float4x4>());
static_assert(std::is_standard_layout_v<float4>);

TEST(MslLayout, ScalarSizesMatchMsl) {
  EXPECT_EQ(sizeof(half), 2u);
  EXPECT_EQ(sizeof(bfloat), 2u);
  EXPECT_EQ(sizeof(long), 8u);
  EXPECT_EQ(sizeof(ulong), 8u);
  EXPECT_TRUE(std::is_trivially_copyable_v<half>);
  EXPECT_TRUE(std::is_trivially_copyable_v<bfloat>);
}

TEST(MslLayout, VectorsAreTrivialForBuffers) {
  EXPECT_TRUE(copies_as_bytes<float4>());
  EXPECT_TRUE(copies_as_bytes<half3>());
  EXPECT_TRUE(copies_as_bytes<packed_float3>());
  EXPECT_TRUE(std::is_trivially_copy_constructible_v<int2>);
  EXPECT_TRUE(std::is_trivially_destructible_v<ulong4>);
  EXPECT_TRUE(std::is_trivially_default_constructible_v<float3>);
}

TEST(MslLayout, PackedArrayIsDense) {
  packed_float3 a[4];
  EXPECT_EQ(reinterpret_cast<char*>(&a[1]) - reinterpret_cast<char*>(&a[0]), 12);
  float3 b[4];
  EXPECT_EQ(reinterpret_cast<char*>(&b[1]) - reinterpret_cast<char*>(&b[0]), 16);
}

}  // namespace
