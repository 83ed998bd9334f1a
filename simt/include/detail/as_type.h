#pragma once
// as_type<T>(x) (MSL spec 2.13.2): reinterprets the bits of x as T; sizes must match, as in MSL
// (float3 is 16 bytes, so as_type<uint4>(float3) is allowed and float3 <-> uint3 is too).
#include <type_traits>

#include "detail/type_traits.h"

namespace metal {

// ------------------------------ as_type
// A bit cast. Vectors are trivially copy-constructible and destructible, but under Clang not
// std::is_trivially_copyable (detail/vec.h says why), which __builtin_bit_cast requires: they
// are copied byte for byte instead, which is the same bit cast outside constant expressions.
template <class To, class From>
constexpr To as_type(const From& x) {
  static_assert(sizeof(To) == sizeof(From), "as_type: source and destination sizes differ");
  if constexpr (std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>) {
    return __builtin_bit_cast(To, x);
  } else {
    To r;
    __builtin_memcpy(static_cast<void*>(&r), static_cast<const void*>(&x), sizeof(To));
    return r;
  }
}

}  // namespace metal
