#pragma once
// Lifting scalar library functions to vectors. A call with vector arguments is valid when at least
// one argument is a vector-like and every vector-like has the same element type and size; scalar
// arguments are converted to that element type and broadcast (MSL's `clamp(v, 0.0f, 1.0f)`).
// METAL_LIFTn(name, Concept) declares the vector overload of `name` for element types satisfying
// Concept, calling the scalar overload of `name` once per component.
#include "detail/vec_ops.h"

namespace metal::detail {

template <class... A>
struct first_vec {
  using type = void;
};
template <class A, class... R>
struct first_vec<A, R...> {
  using type = std::conditional_t<vector_like<A>, std::remove_cvref_t<A>, typename first_vec<R...>::type>;
};
template <class... A>
using first_vec_t = typename first_vec<A...>::type;

template <class F, class A>
concept fits_vec = scalar<A> || (vector_like<A> && std::same_as<elem_t<A>, elem_t<F>> &&
                                 size_v<A> == size_v<F>);
template <class... A>
concept vec_args = !std::is_void_v<first_vec_t<A...>> && (fits_vec<first_vec_t<A...>, A> && ...);
template <class... A>
using vec_args_elem_t = elem_t<first_vec_t<A...>>;

template <class T>
concept float_elem = std::same_as<T, float> || std::same_as<T, half> || std::same_as<T, bfloat>;
template <class T>
concept bfloat_scalar = std::same_as<T, bfloat>;
template <class T>
concept int_elem = std::is_integral_v<T> && !std::same_as<T, bool>;
template <class T>
concept any_elem = float_elem<T> || int_elem<T>;
// Scalars that are neither float nor half (double, integers): float functions take them as float.
template <class T>
concept plain_arith = std::is_arithmetic_v<T> && !std::same_as<T, float> && !std::same_as<T, bool>;

}  // namespace metal::detail

// Declares one of our bfloat overloads of a library function, with B standing for bfloat. Apple's
// MSL 3.1 library has no bfloat math, common or simd functions, so third-party code defines its
// own in namespace metal (MLX's bf16_math.h: `bfloat exp(bfloat)`, `bfloat max(bfloat, bfloat)`,
// ...). Ours are templates so that such a definition declares a distinct function, which overload
// resolution prefers (non-template over template), instead of a redefinition; code that defines
// none still calls ours.
#define METAL_BFLOAT_OVERLOAD template <::metal::detail::bfloat_scalar B> inline

#define METAL_LIFT1(name, Concept)                                                         \
  template <class V>                                                                       \
    requires ::metal::detail::vector_like<V> && Concept<::metal::detail::elem_t<V>>        \
  constexpr auto name(const V& v) {                                                        \
    using T = ::metal::detail::elem_t<V>;                                                  \
    return ::metal::detail::map_as<T>([](T x) { return name(x); }, v);                     \
  }
#define METAL_LIFT2(name, Concept)                                                         \
  template <class A, class B>                                                              \
    requires ::metal::detail::vec_args<A, B> && Concept<::metal::detail::vec_args_elem_t<A, B>> \
  constexpr auto name(const A& a, const B& b) {                                            \
    using T = ::metal::detail::vec_args_elem_t<A, B>;                                      \
    return ::metal::detail::map_as<T>([](T x, T y) { return name(x, y); }, a, b);          \
  }
#define METAL_LIFT3(name, Concept)                                                         \
  template <class A, class B, class C>                                                     \
    requires ::metal::detail::vec_args<A, B, C> &&                                         \
             Concept<::metal::detail::vec_args_elem_t<A, B, C>>                            \
  constexpr auto name(const A& a, const B& b, const C& c) {                                \
    using T = ::metal::detail::vec_args_elem_t<A, B, C>;                                   \
    return ::metal::detail::map_as<T>([](T x, T y, T z) { return name(x, y, z); }, a, b, c); \
  }
