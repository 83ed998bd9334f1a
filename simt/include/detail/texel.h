#pragma once
// One pixel of a texture to and from a kernel's vec<T, 4>: the conversion rules of the MSL
// specification (8.7, "Texture Addressing and Conversion Rules"), by the pixel-format table of
// simt/abi/pixel_format.h. Used by detail/texture.h and detail/sampler.h.
#include <cstdint>
#include <type_traits>

#include "detail/scalar.h"
#include "detail/type_traits.h"
#include "simt/abi/pixel_format.h"

namespace metal::detail {

using ::metalsim::abi::Component;

// ------------------------------ component loads
template <class S>
inline S load_as(const char* p) {
  S s;
  __builtin_memcpy(&s, p, sizeof s);
  return s;
}

// A normalized or floating-point component as float (8.7.1.1, 8.7.2, 8.7.3). Integer components
// (a format a float texture cannot have once validated) read as their value.
inline float component_to_float(const char* p, Component c) {
  switch (c) {
    case Component::unorm8: return float(load_as<uint8_t>(p)) / 255.0f;
    case Component::snorm8: return __builtin_fmaxf(-1.0f, float(load_as<int8_t>(p)) / 127.0f);
    case Component::unorm16: return float(load_as<uint16_t>(p)) / 65535.0f;
    case Component::snorm16: return __builtin_fmaxf(-1.0f, float(load_as<int16_t>(p)) / 32767.0f);
    case Component::float16: return float(load_as<_Float16>(p));
    case Component::float32: return load_as<float>(p);
    case Component::uint8: return float(load_as<uint8_t>(p));
    case Component::sint8: return float(load_as<int8_t>(p));
    case Component::uint16: return float(load_as<uint16_t>(p));
    case Component::sint16: return float(load_as<int16_t>(p));
    case Component::uint32: return float(load_as<uint32_t>(p));
    case Component::sint32: return float(load_as<int32_t>(p));
  }
  return 0.0f;
}

// An integer component as a 32-bit integer, sign- or zero-extended (8.7.6).
inline int64_t component_to_integer(const char* p, Component c) {
  switch (c) {
    case Component::uint8: return load_as<uint8_t>(p);
    case Component::sint8: return load_as<int8_t>(p);
    case Component::uint16: return load_as<uint16_t>(p);
    case Component::sint16: return load_as<int16_t>(p);
    case Component::uint32: return load_as<uint32_t>(p);
    case Component::sint32: return load_as<int32_t>(p);
    default: return int64_t(component_to_float(p, c));
  }
}

// ------------------------------ component stores
// float to a normalized integer: clamp, scale, round to nearest even; NaN is 0 (8.7.1.2).
inline int32_t float_to_normalized(float f, float scale, float low) {
  if (__builtin_isnan(f)) return 0;
  const float x = __builtin_fminf(__builtin_fmaxf(f * scale, low), scale);
  return int32_t(__builtin_nearbyintf(x));
}

template <class S>
inline void store_as(char* p, S s) {
  __builtin_memcpy(p, &s, sizeof s);
}

inline void store_float_component(char* p, Component c, float f) {
  switch (c) {
    case Component::unorm8: store_as(p, uint8_t(float_to_normalized(f, 255.0f, 0.0f))); return;
    case Component::snorm8: store_as(p, int8_t(float_to_normalized(f, 127.0f, -127.0f))); return;
    case Component::unorm16: store_as(p, uint16_t(float_to_normalized(f, 65535.0f, 0.0f))); return;
    case Component::snorm16:
      store_as(p, int16_t(float_to_normalized(f, 32767.0f, -32767.0f)));
      return;
    case Component::float16: store_as(p, _Float16(f)); return;
    case Component::float32: store_as(p, f); return;
    default: return;  // an integer format under a float texture: validation refuses it
  }
}

// A 32-bit integer to an integer component, saturated to its range (8.7.6).
inline void store_integer_component(char* p, Component c, int64_t v) {
  auto sat = [v](int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); };
  switch (c) {
    case Component::uint8: store_as(p, uint8_t(sat(0, 255))); return;
    case Component::sint8: store_as(p, int8_t(sat(-128, 127))); return;
    case Component::uint16: store_as(p, uint16_t(sat(0, 65535))); return;
    case Component::sint16: store_as(p, int16_t(sat(-32768, 32767))); return;
    case Component::uint32: store_as(p, uint32_t(v)); return;
    case Component::sint32: store_as(p, int32_t(v)); return;
    default: return;  // a float format under an integer texture: validation refuses it
  }
}

// ------------------------------ pixels
// Storage position of logical component i (R, G, B, A): BGRA swaps R and B.
inline int storage_slot(int i, bool bgra) { return bgra && (i == 0 || i == 2) ? 2 - i : i; }

// A pixel as vec<T, 4>: missing components read 0, a missing alpha 1 (MSL 6.12).
template <class T>
vec<T, 4> load_texel(const char* pixel, ::metalsim::abi::PixelFormat format) {
  const ::metalsim::abi::PixelFormatInfo info = ::metalsim::abi::pixel_format_info(format);
  const uint32_t size = ::metalsim::abi::component_bytes(info.component);
  vec<T, 4> out(T(0), T(0), T(0), T(1));
  for (int i = 0; i < info.channels; ++i) {
    const char* p = pixel + storage_slot(i, info.bgra) * size;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half>)
      out[i] = T(component_to_float(p, info.component));
    else out[i] = T(component_to_integer(p, info.component));
  }
  return out;
}

template <class T>
void store_texel(char* pixel, ::metalsim::abi::PixelFormat format, vec<T, 4> color) {
  const ::metalsim::abi::PixelFormatInfo info = ::metalsim::abi::pixel_format_info(format);
  const uint32_t size = ::metalsim::abi::component_bytes(info.component);
  for (int i = 0; i < info.channels; ++i) {
    char* p = pixel + storage_slot(i, info.bgra) * size;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half>)
      store_float_component(p, info.component, float(color[i]));
    else store_integer_component(p, info.component, int64_t(color[i]));
  }
}

// What a read outside the texture returns when the mem check is off: a pixel of zero bytes
// (8.7: "the default value for each component").
template <class T>
vec<T, 4> zero_texel(::metalsim::abi::PixelFormat format) {
  const char zero[16] = {};
  return load_texel<T>(zero, format);
}

}  // namespace metal::detail
