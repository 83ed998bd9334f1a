#pragma once
// Multi-component swizzles (`v.xy`, `v.zyx`, `v.rgba`): each is a member of the vector's storage
// union, a proxy over the same N elements that reads (and, when its indices are distinct, writes)
// the components it names. Single components (`v.x`) are plain T members. A proxy's copy
// assignment is never eligible (an implicit one would copy the whole storage); assignment takes a
// vec<T,K>, so `a.xz = b.xz` converts b.xz to float2 and writes two elements. Keeping that
// assignment a non-template is what lets GCC keep the enclosing vector trivially copyable.
#include "detail/type_traits.h"

namespace metal {

template <class T, int N, int... I>
struct swizzle {
  static constexpr int K = sizeof...(I);
  static constexpr int index[K] = {I...};
  static constexpr bool writable = [] {
    for (int a = 0; a < K; ++a)
      for (int b = a + 1; b < K; ++b)
        if (index[a] == index[b]) return false;
    return true;
  }();

  T d[N];

  swizzle& operator=(const swizzle&)
    requires detail::never<T>
  = default;

  constexpr swizzle& operator=(const vec<T, K>& t) requires writable {
    const vec<T, K> c = t;
    for (int k = 0; k < K; ++k) d[index[k]] = c[k];
    return *this;
  }

  constexpr T operator[](int k) const { return d[index[k]]; }
};

}  // namespace metal

// ------------------------------ swizzle member lists
// METAL_SWZn(a,b,...) declares every 2-, 3- and 4-component swizzle over the n letters given.
#define METAL_SWZ_IDX_x 0
#define METAL_SWZ_IDX_y 1
#define METAL_SWZ_IDX_z 2
#define METAL_SWZ_IDX_w 3
#define METAL_SWZ_IDX_r 0
#define METAL_SWZ_IDX_g 1
#define METAL_SWZ_IDX_b 2
#define METAL_SWZ_IDX_a 3
#define METAL_SWZ_I(c) METAL_SWZ_IDX_##c
#define METAL_SWZ_M2(p, q) ::metal::swizzle<T, N, METAL_SWZ_I(p), METAL_SWZ_I(q)> p##q;
#define METAL_SWZ_M3(p, q, s) \
  ::metal::swizzle<T, N, METAL_SWZ_I(p), METAL_SWZ_I(q), METAL_SWZ_I(s)> p##q##s;
#define METAL_SWZ_M4(p, q, s, t)                                                            \
  ::metal::swizzle<T, N, METAL_SWZ_I(p), METAL_SWZ_I(q), METAL_SWZ_I(s), METAL_SWZ_I(t)> \
      p##q##s##t;

#define METAL_SWZ2_D(A, B, p, q, s) METAL_SWZ_M4(p, q, s, A) METAL_SWZ_M4(p, q, s, B)
#define METAL_SWZ2_C(A, B, p, q) \
  METAL_SWZ_M3(p, q, A) METAL_SWZ_M3(p, q, B) METAL_SWZ2_D(A, B, p, q, A) METAL_SWZ2_D(A, B, p, q, B)
#define METAL_SWZ2_B(A, B, p) \
  METAL_SWZ_M2(p, A) METAL_SWZ_M2(p, B) METAL_SWZ2_C(A, B, p, A) METAL_SWZ2_C(A, B, p, B)
#define METAL_SWZ2(A, B) METAL_SWZ2_B(A, B, A) METAL_SWZ2_B(A, B, B)

#define METAL_SWZ3_D(A, B, C, p, q, s) \
  METAL_SWZ_M4(p, q, s, A) METAL_SWZ_M4(p, q, s, B) METAL_SWZ_M4(p, q, s, C)
#define METAL_SWZ3_C(A, B, C, p, q)                                                   \
  METAL_SWZ_M3(p, q, A) METAL_SWZ_M3(p, q, B) METAL_SWZ_M3(p, q, C)                   \
  METAL_SWZ3_D(A, B, C, p, q, A) METAL_SWZ3_D(A, B, C, p, q, B) METAL_SWZ3_D(A, B, C, p, q, C)
#define METAL_SWZ3_B(A, B, C, p)                                                       \
  METAL_SWZ_M2(p, A) METAL_SWZ_M2(p, B) METAL_SWZ_M2(p, C) METAL_SWZ3_C(A, B, C, p, A) \
  METAL_SWZ3_C(A, B, C, p, B) METAL_SWZ3_C(A, B, C, p, C)
#define METAL_SWZ3(A, B, C) METAL_SWZ3_B(A, B, C, A) METAL_SWZ3_B(A, B, C, B) METAL_SWZ3_B(A, B, C, C)

#define METAL_SWZ4_D(A, B, C, D, p, q, s) \
  METAL_SWZ_M4(p, q, s, A) METAL_SWZ_M4(p, q, s, B) METAL_SWZ_M4(p, q, s, C) METAL_SWZ_M4(p, q, s, D)
#define METAL_SWZ4_C(A, B, C, D, p, q)                                                       \
  METAL_SWZ_M3(p, q, A) METAL_SWZ_M3(p, q, B) METAL_SWZ_M3(p, q, C) METAL_SWZ_M3(p, q, D)    \
  METAL_SWZ4_D(A, B, C, D, p, q, A) METAL_SWZ4_D(A, B, C, D, p, q, B)                        \
  METAL_SWZ4_D(A, B, C, D, p, q, C) METAL_SWZ4_D(A, B, C, D, p, q, D)
#define METAL_SWZ4_B(A, B, C, D, p)                                                          \
  METAL_SWZ_M2(p, A) METAL_SWZ_M2(p, B) METAL_SWZ_M2(p, C) METAL_SWZ_M2(p, D)                \
  METAL_SWZ4_C(A, B, C, D, p, A) METAL_SWZ4_C(A, B, C, D, p, B) METAL_SWZ4_C(A, B, C, D, p, C) \
  METAL_SWZ4_C(A, B, C, D, p, D)
#define METAL_SWZ4(A, B, C, D)                                                            \
  METAL_SWZ4_B(A, B, C, D, A) METAL_SWZ4_B(A, B, C, D, B) METAL_SWZ4_B(A, B, C, D, C) \
  METAL_SWZ4_B(A, B, C, D, D)
