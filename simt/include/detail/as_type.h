#pragma once
// as_type<T>(x) (MSL spec 2.13.2): reinterprets the bits of x as T; sizes must match, as in MSL
// (float3 is 16 bytes, so as_type<uint4>(float3) is allowed and float3 <-> uint3 is too).
#include "detail/type_traits.h"

namespace metal {

// ------------------------------ as_type
template <class To, class From>
constexpr To as_type(const From& x) {
  static_assert(sizeof(To) == sizeof(From), "as_type: source and destination sizes differ");
  return __builtin_bit_cast(To, x);
}

}  // namespace metal
