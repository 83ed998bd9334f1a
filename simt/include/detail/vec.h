#pragma once
// vec<T,N> and packed_vec<T,N> (MSL spec 2.2, 2.2.3). One template, basic_vec<T,N,Packed>:
//   - size and alignment of vec<T,N>: N*sizeof(T) rounded up to a power of two (float3: 16, 16);
//     packed_vec<T,N>: N*sizeof(T), aligned as T (packed_float3: 12, 4);
//   - storage is a union of T e[N], the named components {x,y,z,w} and {r,g,b,a}, and every
//     swizzle proxy (detail/swizzle.h); all share the same bytes, so sizeof stays right;
//   - copied as bytes: the copy constructor and the destructor are trivial (also for user structs
//     holding vectors), so vectors live in buffers and pass in registers. The storage union
//     cannot have a usable trivial copy assignment (a swizzle's assignment writes only its own
//     components), so the only declared copy assignment operator is a deleted `const volatile&`
//     one and ordinary assignment goes through a template that binds every real source better.
//     g++ therefore calls vectors std::is_trivially_copyable; Clang, which judges the union's copy
//     by the swizzle assignment that copying a member selects, does not (as_type copies bytes).
#include "detail/swizzle.h"
#include "detail/type_traits.h"

namespace metal {
namespace detail {

template <class T, int N>
inline constexpr unsigned vec_align = unsigned(sizeof(T)) * (N == 3 ? 4u : unsigned(N));

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"  // anonymous structs inside the union
template <class T, int N>
struct vec_storage;
template <class T>
struct vec_storage<T, 2> {
  static constexpr int N = 2;
  union {
    T e[2];
    struct { T x, y; };
    struct { T r, g; };
    METAL_SWZ2(x, y)
    METAL_SWZ2(r, g)
  };
};
template <class T>
struct vec_storage<T, 3> {
  static constexpr int N = 3;
  union {
    T e[3];
    struct { T x, y, z; };
    struct { T r, g, b; };
    METAL_SWZ3(x, y, z)
    METAL_SWZ3(r, g, b)
  };
};
template <class T>
struct vec_storage<T, 4> {
  static constexpr int N = 4;
  union {
    T e[4];
    struct { T x, y, z, w; };
    struct { T r, g, b, a; };
    METAL_SWZ4(x, y, z, w)
    METAL_SWZ4(r, g, b, a)
  };
};
#pragma GCC diagnostic pop

}  // namespace detail

template <class T, int N, bool Packed>
struct alignas(Packed ? alignof(T) : detail::vec_align<T, N>) basic_vec : detail::vec_storage<T, N> {
  static_assert(N >= 2 && N <= 4, "MSL vectors have 2, 3 or 4 components");
  using value_type = T;
  using detail::vec_storage<T, N>::e;

  basic_vec() = default;
  basic_vec(const basic_vec&) = default;
  // Declared so that no implicit (deleted, yet preferred) copy assignment exists; the template
  // below binds every real source better than `const volatile&`.
  basic_vec& operator=(const volatile basic_vec&) = delete;

  // ------------------------------ broadcast
  template <detail::scalar S>
  constexpr basic_vec(S s) {  // NOLINT: implicit, `float4 v = 0;` is MSL
    for (int i = 0; i < N; ++i) e[i] = static_cast<T>(s);
  }

  // ------------------------------ component-wise construction: float4(f2, 0, 1)
  template <class... A>
    requires(sizeof...(A) >= 2 && ((detail::scalar<A> || detail::vector_like<A>) && ...) &&
             (detail::components<A>() + ...) == N)
  constexpr basic_vec(const A&... a) {
    int k = 0;
    (put(k, a), ...);
  }

  // ------------------------------ a short list of scalars: `uint4 ks = {a, b, c};` (MLX's random)
  // Clang's vector initialiser lists zero the components not given. MSL rejects the same count in
  // a constructor call (`uint4(a, b, c)`); here it is accepted too.
  template <class... A>
    requires(sizeof...(A) >= 2 && sizeof...(A) < N && (detail::scalar<A> && ...))
  constexpr basic_vec(const A&... a) : basic_vec(T{}) {
    int k = 0;
    (put(k, a), ...);
  }

  // ------------------------------ conversion: float4(h4), float2 t = v.xy, packed <-> unpacked
  template <detail::vector_like V>
    requires(detail::size_v<V> == N && !std::same_as<V, basic_vec>)
  constexpr explicit(!std::same_as<detail::elem_t<V>, T>) basic_vec(const V& v) {
    for (int i = 0; i < N; ++i) e[i] = static_cast<T>(v[i]);
  }

  // ------------------------------ assignment from a braced list: `qf1 = {a, b, c, d};` (ggml)
  // The assignment template below cannot deduce from a braced list; this aggregate takes it.
  struct components {
    T c[N];
  };
  constexpr basic_vec& operator=(const components& l) {
    for (int i = 0; i < N; ++i) e[i] = l.c[i];
    return *this;
  }

  // ------------------------------ assignment (copies the bytes; see the header comment)
  template <class V>
    requires std::is_convertible_v<V&&, basic_vec>
  constexpr basic_vec& operator=(V&& v) {
    const basic_vec t = static_cast<V&&>(v);
    for (int i = 0; i < N; ++i) e[i] = t.e[i];
    return *this;
  }

  constexpr T& operator[](int i) { return e[i]; }
  constexpr const T& operator[](int i) const { return e[i]; }

 private:
  template <class A>
  constexpr void put(int& k, const A& a) {
    if constexpr (detail::vector_like<A>) {
      for (int i = 0; i < detail::size_v<A>; ++i) e[k++] = static_cast<T>(a[i]);
    } else {
      e[k++] = static_cast<T>(a);
    }
  }
};

// ------------------------------ named vector types
#define METAL_VEC_TYPES(T)             \
  using T##2 = vec<T, 2>;              \
  using T##3 = vec<T, 3>;              \
  using T##4 = vec<T, 4>;              \
  using packed_##T##2 = packed_vec<T, 2>; \
  using packed_##T##3 = packed_vec<T, 3>; \
  using packed_##T##4 = packed_vec<T, 4>;
METAL_VEC_TYPES(bool)
METAL_VEC_TYPES(char)
METAL_VEC_TYPES(uchar)
METAL_VEC_TYPES(short)
METAL_VEC_TYPES(ushort)
METAL_VEC_TYPES(int)
METAL_VEC_TYPES(uint)
METAL_VEC_TYPES(long)
METAL_VEC_TYPES(ulong)
METAL_VEC_TYPES(half)
METAL_VEC_TYPES(bfloat)
METAL_VEC_TYPES(float)
#undef METAL_VEC_TYPES

}  // namespace metal
