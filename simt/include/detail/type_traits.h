#pragma once
// Classification of MSL types used by every other detail header: scalars, vector-likes (vectors,
// packed vectors, swizzle proxies) and their element type and component count.
#include <concepts>
#include <type_traits>

#include "detail/bfloat.h"
#include "detail/scalar.h"

namespace metal {

template <class T, int N, bool Packed>
struct basic_vec;
template <class T, int N, int... I>
struct swizzle;

template <class T, int N>
using vec = basic_vec<T, N, false>;
template <class T, int N>
using packed_vec = basic_vec<T, N, true>;

namespace detail {

template <class T>
inline constexpr bool never = false;

// ------------------------------ scalar
template <class T>
struct is_scalar : std::bool_constant<std::is_arithmetic_v<T>> {};
template <>
struct is_scalar<_Float16> : std::true_type {};
template <>
struct is_scalar<bfloat> : std::true_type {};
template <class T>
concept scalar = is_scalar<std::remove_cvref_t<T>>::value;

template <class T>
concept floating = std::same_as<T, float> || std::same_as<T, half> || std::same_as<T, bfloat> ||
                   std::same_as<T, double>;

// ------------------------------ vector_like
// A non-vector has size 0 (and no element type), so that size_v<float> in a rejected overload's
// return type (`vec<int, size_v<V>> ilogb(V)` called with a float) is no hard error: Clang
// substitutes into the return type before it checks the constraints.
template <class V>
struct vec_traits {
  static constexpr bool is_vec = false;
  static constexpr int size = 0;
};
template <class T, int N, bool P>
struct vec_traits<basic_vec<T, N, P>> {
  static constexpr bool is_vec = true;
  using elem = T;
  static constexpr int size = N;
};
template <class T, int N, int... I>
struct vec_traits<swizzle<T, N, I...>> {
  static constexpr bool is_vec = true;
  using elem = T;
  static constexpr int size = sizeof...(I);
};

template <class V>
concept vector_like = vec_traits<std::remove_cvref_t<V>>::is_vec;
template <class V>
using elem_t = typename vec_traits<std::remove_cvref_t<V>>::elem;
template <class V>
inline constexpr int size_v = vec_traits<std::remove_cvref_t<V>>::size;
// The (unpacked) vector type a vector-like reads as.
template <class V>
using value_t = vec<elem_t<V>, size_v<V>>;

template <class V>
concept float_vector = vector_like<V> && floating<elem_t<V>>;
template <class V>
concept int_vector = vector_like<V> && std::is_integral_v<elem_t<V>>;

// Components an argument contributes to a vector constructor.
template <class A>
consteval int components() {
  if constexpr (vector_like<A>)
    return size_v<A>;
  else
    return 1;
}

// Element i of a vector-like, or the scalar itself.
template <class X>
constexpr auto lane(const X& x, int i) {
  if constexpr (vector_like<X>)
    return x[i];
  else
    return x;
}

// The vector type an element-wise operation on A and B yields, or void when A and B do not mix:
// two vector-likes need the same element type and size; a scalar is converted to the element type.
template <class A, class B>
struct mix_result {
  using type = void;
};
template <class A, class B>
  requires vector_like<A> && vector_like<B> && std::same_as<elem_t<A>, elem_t<B>> &&
           (size_v<A> == size_v<B>)
struct mix_result<A, B> {
  using type = value_t<A>;
};
template <class A, class B>
  requires vector_like<A> && scalar<B>
struct mix_result<A, B> {
  using type = value_t<A>;
};
template <class A, class B>
  requires scalar<A> && vector_like<B>
struct mix_result<A, B> {
  using type = value_t<B>;
};
template <class A, class B>
using mix_result_t = typename mix_result<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::type;
template <class A, class B>
concept vec_operands = !std::is_void_v<mix_result_t<A, B>>;

}  // namespace detail
}  // namespace metal
