#pragma once
// The integer functions of MSL (spec 6.3) for every integer scalar and vector type. Results are
// of the argument type; saturating and high-half functions compute in a type twice as wide
// (__int128 for 64-bit types).
#include <climits>
#include <limits>
#include <type_traits>

#include "detail/common.h"

namespace metal {
namespace detail {
template <class T>
using uns_t = std::make_unsigned_t<T>;
template <class T>
inline constexpr int bits_v = int(sizeof(T) * CHAR_BIT);
// A type wide enough for the exact sum or product of two T.
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;
template <class T>
using wide_t = std::conditional_t<(sizeof(T) < 4), int64_t,
                                  std::conditional_t<std::is_signed_v<T>, int128, uint128>>;
template <class T, class W>
constexpr T saturate_to(W w) {
  if (w > W(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (w < W(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  return T(w);
}
}  // namespace detail

#define METAL_INT1(name) METAL_LIFT1(name, detail::int_elem)
#define METAL_INT2(name) METAL_LIFT2(name, detail::int_elem)
#define METAL_INT3(name) METAL_LIFT3(name, detail::int_elem)

// ------------------------------ abs (template, so that ::abs(int) from <stdlib.h> stays unambiguous)
template <detail::int_elem T>
constexpr T abs(T x) {
  return x < 0 ? T(detail::uns_t<T>(0) - detail::uns_t<T>(x)) : x;
}
METAL_LIFT1(abs, detail::any_elem)

// ------------------------------ absdiff: |x - y| without overflow
template <detail::int_elem T>
constexpr T absdiff(T x, T y) {
  return x > y ? T(detail::uns_t<T>(x) - detail::uns_t<T>(y)) : T(detail::uns_t<T>(y) - detail::uns_t<T>(x));
}
METAL_INT2(absdiff)

// ------------------------------ addsat, subsat
template <detail::int_elem T>
constexpr T addsat(T x, T y) {
  return detail::saturate_to<T>(detail::wide_t<T>(x) + detail::wide_t<T>(y));
}
template <detail::int_elem T>
constexpr T subsat(T x, T y) {
  if constexpr (std::is_unsigned_v<T>) return x > y ? T(x - y) : T(0);
  else return detail::saturate_to<T>(detail::wide_t<T>(x) - detail::wide_t<T>(y));
}
METAL_INT2(addsat)
METAL_INT2(subsat)

// ------------------------------ hadd, rhadd: (x + y) >> 1 and (x + y + 1) >> 1 without overflow
template <detail::int_elem T>
constexpr T hadd(T x, T y) {
  return T((detail::wide_t<T>(x) + detail::wide_t<T>(y)) >> 1);
}
template <detail::int_elem T>
constexpr T rhadd(T x, T y) {
  return T((detail::wide_t<T>(x) + detail::wide_t<T>(y) + 1) >> 1);
}
METAL_INT2(hadd)
METAL_INT2(rhadd)

// ------------------------------ clz, ctz, popcount (clz(0) = ctz(0) = bit width)
template <detail::int_elem T>
constexpr T clz(T x) {
  const auto u = detail::uns_t<T>(x);
  return u == 0 ? T(detail::bits_v<T>) : T(__builtin_clzll(u) - (64 - detail::bits_v<T>));
}
template <detail::int_elem T>
constexpr T ctz(T x) {
  const auto u = detail::uns_t<T>(x);
  return u == 0 ? T(detail::bits_v<T>) : T(__builtin_ctzll(u));
}
template <detail::int_elem T>
constexpr T popcount(T x) {
  return T(__builtin_popcountll(detail::uns_t<T>(x)));
}
METAL_INT1(clz)
METAL_INT1(ctz)
METAL_INT1(popcount)

// ------------------------------ reverse_bits
template <detail::int_elem T>
constexpr T reverse_bits(T x) {
  auto u = detail::uns_t<T>(x);
  detail::uns_t<T> r = 0;
  for (int i = 0; i < detail::bits_v<T>; ++i, u >>= 1) r = detail::uns_t<T>((r << 1) | (u & 1u));
  return T(r);
}
METAL_INT1(reverse_bits)

// ------------------------------ rotate: rotate left by y mod bit width
template <detail::int_elem T>
constexpr T rotate(T x, T y) {
  constexpr int w = detail::bits_v<T>;
  const auto u = detail::uns_t<T>(x);
  const int s = int(detail::uns_t<T>(y) % unsigned(w));
  return s == 0 ? x : T(detail::uns_t<T>((u << s) | (u >> (w - s))));
}
METAL_INT2(rotate)

// ------------------------------ extract_bits, insert_bits (offset + bits <= bit width)
template <detail::int_elem T>
constexpr T extract_bits(T x, uint offset, uint bits) {
  if (bits == 0) return T(0);
  constexpr int w = detail::bits_v<T>;
  const auto u = detail::uns_t<T>(detail::uns_t<T>(x) << (w - int(offset + bits)));
  if constexpr (std::is_signed_v<T>) return T(T(u) >> (w - int(bits)));  // sign-extends
  else return T(u >> (w - int(bits)));
}
template <detail::int_elem T>
constexpr T insert_bits(T base, T insert, uint offset, uint bits) {
  if (bits == 0) return base;
  using U = detail::uns_t<T>;
  const U ones = U(~U(0));
  const U mask = U(U(ones >> (detail::bits_v<T> - int(bits))) << offset);
  return T(U((U(base) & U(~mask)) | (U(U(insert) << offset) & mask)));
}
template <class V>
  requires detail::int_vector<V>
constexpr auto extract_bits(const V& x, uint offset, uint bits) {
  using T = detail::elem_t<V>;
  return detail::map_as<T>([=](T e) { return extract_bits(e, offset, bits); }, x);
}
template <class V, class W>
  requires detail::int_vector<V> && detail::vec_args<V, W>
constexpr auto insert_bits(const V& base, const W& insert, uint offset, uint bits) {
  using T = detail::elem_t<V>;
  return detail::map_as<T>([=](T b, T i) { return insert_bits(b, i, offset, bits); }, base, insert);
}

// ------------------------------ mul24, mad24 (operands taken as 24-bit), mulhi, madhi, madsat
template <detail::int_elem T>
  requires(sizeof(T) == 4)
constexpr T mul24(T x, T y) {
  const auto sx = std::is_signed_v<T> ? int64_t(int32_t(uint32_t(x) << 8) >> 8) : int64_t(uint32_t(x) & 0xffffffu);
  const auto sy = std::is_signed_v<T> ? int64_t(int32_t(uint32_t(y) << 8) >> 8) : int64_t(uint32_t(y) & 0xffffffu);
  return T(uint32_t(uint64_t(sx * sy)));
}
template <detail::int_elem T>
  requires(sizeof(T) == 4)
constexpr T mad24(T x, T y, T z) {
  return T(uint32_t(mul24(x, y)) + uint32_t(z));
}
template <detail::int_elem T>
constexpr T mulhi(T x, T y) {
  using W = detail::wide_t<T>;
  return T((W(x) * W(y)) >> detail::bits_v<T>);
}
template <detail::int_elem T>
constexpr T madhi(T x, T y, T z) {
  return T(detail::uns_t<T>(mulhi(x, y)) + detail::uns_t<T>(z));
}
// The wide type holds x * y + z exactly for every T (for 64-bit T, |x*y| < 2^127 in __int128).
template <detail::int_elem T>
constexpr T madsat(T x, T y, T z) {
  using W = detail::wide_t<T>;
  return detail::saturate_to<T>(W(x) * W(y) + W(z));
}
METAL_INT2(mul24)
METAL_INT3(mad24)
METAL_INT2(mulhi)
METAL_INT3(madhi)
METAL_INT3(madsat)

#undef METAL_INT1
#undef METAL_INT2
#undef METAL_INT3

}  // namespace metal
