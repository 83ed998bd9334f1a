#pragma once
// The common functions of MSL (spec 6.4) and max/min/clamp for every scalar type: clamp, mix,
// saturate, sign, smoothstep, step, max, min, max3, min3, median3. On floats, max/min follow fmax
// and fmin (a NaN operand yields the other operand).
#include "detail/math.h"

namespace metal {

#define METAL_FOR_INT_TYPES(M) \
  M(char) M(signed char) M(uchar) M(short) M(ushort) M(int) M(uint) M(long) M(ulong)
// M(T, DECL): DECL declares each function; bfloat's are templates on B (detail/lift.h says why).
#define METAL_FOR_FLOAT_TYPES(M) M(float, inline) M(half, inline) M(B, METAL_BFLOAT_OVERLOAD)

// ------------------------------ max, min, max3, min3, median3, clamp (integers)
#define METAL_INT_MINMAX(T)                                                                 \
  constexpr T max(T x, T y) { return x < y ? y : x; }                                       \
  constexpr T min(T x, T y) { return y < x ? y : x; }                                       \
  constexpr T max3(T x, T y, T z) { return max(max(x, y), z); }                             \
  constexpr T min3(T x, T y, T z) { return min(min(x, y), z); }                             \
  constexpr T median3(T x, T y, T z) { return max(min(x, y), min(max(x, y), z)); }          \
  constexpr T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
METAL_FOR_INT_TYPES(METAL_INT_MINMAX)
#undef METAL_INT_MINMAX

// ------------------------------ max, min, max3, min3, median3, clamp (floats)
#define METAL_FLOAT_MINMAX(T, DECL)                                                      \
  DECL T max(T x, T y) { return fmax(x, y); }                                            \
  DECL T min(T x, T y) { return fmin(x, y); }                                            \
  DECL T max3(T x, T y, T z) { return fmax3(x, y, z); }                                  \
  DECL T min3(T x, T y, T z) { return fmin3(x, y, z); }                                  \
  DECL T median3(T x, T y, T z) { return fmedian3(x, y, z); }                            \
  DECL T clamp(T x, T lo, T hi) { return fmin(fmax(x, lo), hi); }
METAL_FOR_FLOAT_TYPES(METAL_FLOAT_MINMAX)
#undef METAL_FLOAT_MINMAX
METAL_LIFT2(max, detail::any_elem)
METAL_LIFT2(min, detail::any_elem)
METAL_LIFT3(max3, detail::any_elem)
METAL_LIFT3(min3, detail::any_elem)
METAL_LIFT3(median3, detail::any_elem)
METAL_LIFT3(clamp, detail::any_elem)

// ------------------------------ saturate: clamp(x, 0, 1)
#define METAL_SATURATE(T, DECL) \
  DECL T saturate(T x) { return clamp(x, T(0.0f), T(1.0f)); }
METAL_FOR_FLOAT_TYPES(METAL_SATURATE)
#undef METAL_SATURATE
METAL_LIFT1(saturate, detail::float_elem)

// ------------------------------ mix: x + (y - x) * a
#define METAL_MIX(T, DECL) \
  DECL T mix(T x, T y, T a) { return x + (y - x) * a; }
METAL_FOR_FLOAT_TYPES(METAL_MIX)
#undef METAL_MIX
METAL_LIFT3(mix, detail::float_elem)

// ------------------------------ sign: 1 if x > 0, -1 if x < 0, x itself for +-0, 0 for NaN
#define METAL_SIGN(T, DECL)                                  \
  DECL T sign(T x) {                                       \
    if (x > T(0.0f)) return T(1.0f);                         \
    if (x < T(0.0f)) return T(-1.0f);                        \
    return x == T(0.0f) ? x : T(0.0f);                       \
  }
METAL_FOR_FLOAT_TYPES(METAL_SIGN)
#undef METAL_SIGN
METAL_LIFT1(sign, detail::float_elem)

// ------------------------------ step: 0 if x < edge, else 1
#define METAL_STEP(T, DECL) \
  DECL T step(T edge, T x) { return x < edge ? T(0.0f) : T(1.0f); }
METAL_FOR_FLOAT_TYPES(METAL_STEP)
#undef METAL_STEP
METAL_LIFT2(step, detail::float_elem)

// ------------------------------ smoothstep: t*t*(3-2t), t = clamp((x-e0)/(e1-e0), 0, 1)
#define METAL_SMOOTHSTEP(T, DECL)                                    \
  DECL T smoothstep(T e0, T e1, T x) {                             \
    const float t = clamp((float(x) - float(e0)) / (float(e1) - float(e0)), 0.0f, 1.0f); \
    return T(t * t * (3.0f - 2.0f * t));                             \
  }
METAL_FOR_FLOAT_TYPES(METAL_SMOOTHSTEP)
#undef METAL_SMOOTHSTEP
METAL_LIFT3(smoothstep, detail::float_elem)

}  // namespace metal
