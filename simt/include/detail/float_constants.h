#pragma once
// The float constants of MSL (spec 6.2). FLT_* come from <cfloat>.
//
// <cmath> is not included: MSL has no C math library, and glibc's would put `double log1p(double)`
// and the like in the global namespace, where a kernel's own `float log1p(float)` (MLX utils.h)
// then makes `log1p(half)` ambiguous. INFINITY, NAN, HUGE_VALF and MAXFLOAT are defined here,
// spelled token for token as glibc's <math.h> spells them, so a translation unit that includes
// <cmath> as well (host code, tests) sees identical redefinitions.
#include <cfloat>
#include <climits>

// clang-format off
#ifndef INFINITY
#define INFINITY (__builtin_inff ())
#endif
#ifndef NAN
#define NAN (__builtin_nanf (""))
#endif
#ifndef HUGE_VALF
#define HUGE_VALF (__builtin_huge_valf ())
#endif
#ifndef MAXFLOAT
#define MAXFLOAT 3.40282347e+38F
#endif
// clang-format on

// ------------------------------ float math constants
#define M_E_F 2.71828182845904523536f
#define M_LOG2E_F 1.44269504088896340736f
#define M_LOG10E_F 0.434294481903251827651f
#define M_LN2_F 0.693147180559945309417f
#define M_LN10_F 2.30258509299404568402f
#define M_PI_F 3.14159265358979323846f
#define M_PI_2_F 1.57079632679489661923f
#define M_PI_4_F 0.785398163397448309616f
#define M_1_PI_F 0.318309886183790671538f
#define M_2_PI_F 0.636619772367581343076f
#define M_2_SQRTPI_F 1.12837916709551257390f
#define M_SQRT2_F 1.41421356237309504880f
#define M_SQRT1_2_F 0.707106781186547524401f
