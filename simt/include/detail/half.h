#pragma once
// The constants of `half` (MSL spec 6.2, "half constants"). Arithmetic is the compiler's: see
// detail/scalar.h. Library functions on half compute in float and round once to half.
#include "detail/scalar.h"

// ------------------------------ half limits
#define MAXHALF ((metal::half)0x1.ffcp15f)
#define HALF_MAX ((metal::half)0x1.ffcp15f)
#define HALF_MIN ((metal::half)0x1p-14f)
#define HALF_EPSILON ((metal::half)0x1p-10f)
#define HALF_DIG 3
#define HALF_MANT_DIG 11
#define HALF_MAX_10_EXP 4
#define HALF_MAX_EXP 16
#define HALF_MIN_10_EXP (-4)
#define HALF_MIN_EXP (-13)
#define HALF_RADIX 2
#define HALF_DECIMAL_DIG 5  // not in every MSL version; harmless

// ------------------------------ the compiler's _Float16 limits
// Apple's compiler (clang) predefines __FLT16_MAX__ and friends with an F16 suffix; MSL code uses
// them as half constants (ggml: `half M = -__FLT16_MAX__/2;`). g++ predefines them too, but
// rejects the F16 suffix before C++23, so they are re-defined here with the same values.
#undef __FLT16_MAX__
#undef __FLT16_MIN__
#undef __FLT16_EPSILON__
#undef __FLT16_DENORM_MIN__
#define __FLT16_MAX__ ((metal::half)0x1.ffcp15f)
#define __FLT16_MIN__ ((metal::half)0x1p-14f)
#define __FLT16_EPSILON__ ((metal::half)0x1p-10f)
#define __FLT16_DENORM_MIN__ ((metal::half)0x1p-24f)

// ------------------------------ half math constants
#define M_E_H ((metal::half)2.718281828459045f)
#define M_LOG2E_H ((metal::half)1.442695040888963f)
#define M_LOG10E_H ((metal::half)0.434294481903252f)
#define M_LN2_H ((metal::half)0.693147180559945f)
#define M_LN10_H ((metal::half)2.302585092994046f)
#define M_PI_H ((metal::half)3.141592653589793f)
#define M_PI_2_H ((metal::half)1.570796326794897f)
#define M_PI_4_H ((metal::half)0.785398163397448f)
#define M_1_PI_H ((metal::half)0.318309886183791f)
#define M_2_PI_H ((metal::half)0.636619772367581f)
#define M_2_SQRTPI_H ((metal::half)1.128379167095513f)
#define M_SQRT2_H ((metal::half)1.414213562373095f)
#define M_SQRT1_2_H ((metal::half)0.707106781186548f)
