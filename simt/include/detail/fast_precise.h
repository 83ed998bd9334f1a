#pragma once
// metal::fast:: and metal::precise:: (MSL spec 6.5): both name the accurate implementations of
// detail/math.h and detail/geometric.h (fast results are within fast's tolerance a fortiori).
#include "detail/common.h"
#include "detail/geometric.h"
#include "detail/math.h"

#define METAL_FAST_PRECISE_NAMES                                                               \
  using ::metal::abs, ::metal::acos, ::metal::acosh, ::metal::asin, ::metal::asinh,             \
      ::metal::atan, ::metal::atan2, ::metal::atanh, ::metal::ceil, ::metal::copysign,          \
      ::metal::cos, ::metal::cosh, ::metal::cospi, ::metal::divide, ::metal::exp, ::metal::exp2, \
      ::metal::exp10, ::metal::fabs, ::metal::fdim, ::metal::floor, ::metal::fma, ::metal::fmax, \
      ::metal::fmax3, ::metal::fmedian3, ::metal::fmin, ::metal::fmin3, ::metal::fmod,          \
      ::metal::fract, ::metal::frexp, ::metal::ilogb, ::metal::ldexp, ::metal::log,             \
      ::metal::log2, ::metal::log10, ::metal::modf, ::metal::nextafter, ::metal::pow,           \
      ::metal::powr, ::metal::rint, ::metal::round, ::metal::rsqrt, ::metal::sin,               \
      ::metal::sincos, ::metal::sinh, ::metal::sinpi, ::metal::sqrt, ::metal::tan,              \
      ::metal::tanh, ::metal::tanpi, ::metal::trunc, ::metal::max, ::metal::min,                \
      ::metal::clamp, ::metal::saturate, ::metal::distance, ::metal::length,                    \
      ::metal::normalize;

namespace metal::fast {
METAL_FAST_PRECISE_NAMES
}  // namespace metal::fast
namespace metal::precise {
METAL_FAST_PRECISE_NAMES
}  // namespace metal::precise
#undef METAL_FAST_PRECISE_NAMES
