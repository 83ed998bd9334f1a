#pragma once
// Pixel formats of textures (docs/textures.md): Metal's MTLPixelFormat numbers, and for each the
// storage of one pixel. The host's MTL::PixelFormat uses the same numbers; the MSL headers
// (detail/texel.h) convert a pixel to and from the kernel's vec<T, 4> by this table.
#include <cstdint>
#include <string_view>

namespace metalsim::abi {

// How one component is stored.
enum class Component : uint8_t {
  unorm8,
  snorm8,
  uint8,
  sint8,
  unorm16,
  snorm16,
  uint16,
  sint16,
  float16,
  uint32,
  sint32,
  float32,
};

// What a kernel's texture<T> must be to read a format (Metal's validation): float and half read
// float and normalized formats, int and short signed integer formats, uint and ushort unsigned.
enum class SampleKind : uint8_t { floating, sint, uint };

// X(name, MTLPixelFormat value, component, channels, stored as BGRA)
#define METALSIM_PIXEL_FORMATS(X)        \
  X(R8Unorm, 10, unorm8, 1, false)       \
  X(R8Snorm, 12, snorm8, 1, false)       \
  X(R8Uint, 13, uint8, 1, false)         \
  X(R8Sint, 14, sint8, 1, false)         \
  X(R16Unorm, 20, unorm16, 1, false)     \
  X(R16Snorm, 22, snorm16, 1, false)     \
  X(R16Uint, 23, uint16, 1, false)       \
  X(R16Sint, 24, sint16, 1, false)       \
  X(R16Float, 25, float16, 1, false)     \
  X(RG8Unorm, 30, unorm8, 2, false)      \
  X(RG8Snorm, 32, snorm8, 2, false)      \
  X(RG8Uint, 33, uint8, 2, false)        \
  X(RG8Sint, 34, sint8, 2, false)        \
  X(R32Uint, 53, uint32, 1, false)       \
  X(R32Sint, 54, sint32, 1, false)       \
  X(R32Float, 55, float32, 1, false)     \
  X(RG16Unorm, 60, unorm16, 2, false)    \
  X(RG16Snorm, 62, snorm16, 2, false)    \
  X(RG16Uint, 63, uint16, 2, false)      \
  X(RG16Sint, 64, sint16, 2, false)      \
  X(RG16Float, 65, float16, 2, false)    \
  X(RGBA8Unorm, 70, unorm8, 4, false)    \
  X(RGBA8Snorm, 72, snorm8, 4, false)    \
  X(RGBA8Uint, 73, uint8, 4, false)      \
  X(RGBA8Sint, 74, sint8, 4, false)      \
  X(BGRA8Unorm, 80, unorm8, 4, true)     \
  X(RG32Uint, 103, uint32, 2, false)     \
  X(RG32Sint, 104, sint32, 2, false)     \
  X(RG32Float, 105, float32, 2, false)   \
  X(RGBA16Unorm, 110, unorm16, 4, false) \
  X(RGBA16Snorm, 112, snorm16, 4, false) \
  X(RGBA16Uint, 113, uint16, 4, false)   \
  X(RGBA16Sint, 114, sint16, 4, false)   \
  X(RGBA16Float, 115, float16, 4, false) \
  X(RGBA32Uint, 123, uint32, 4, false)   \
  X(RGBA32Sint, 124, sint32, 4, false)   \
  X(RGBA32Float, 125, float32, 4, false)

enum class PixelFormat : uint16_t {
  Invalid = 0,
#define METALSIM_PIXEL_FORMAT_ENUM(name, value, component, channels, bgra) name = value,
  METALSIM_PIXEL_FORMATS(METALSIM_PIXEL_FORMAT_ENUM)
#undef METALSIM_PIXEL_FORMAT_ENUM
};

struct PixelFormatInfo {
  std::string_view name;  // "RGBA8Unorm"; "" for a format metalsim does not support
  Component component = Component::float32;
  uint8_t channels = 0;  // 0: not supported
  bool bgra = false;     // stored B, G, R, A: a read returns R, G, B, A
};

constexpr PixelFormatInfo pixel_format_info(PixelFormat f) {
  switch (f) {
#define METALSIM_PIXEL_FORMAT_CASE(name, value, component, channels, bgra) \
  case PixelFormat::name: return {#name, Component::component, channels, bgra};
    METALSIM_PIXEL_FORMATS(METALSIM_PIXEL_FORMAT_CASE)
#undef METALSIM_PIXEL_FORMAT_CASE
    case PixelFormat::Invalid: break;
  }
  return {};
}

constexpr uint32_t component_bytes(Component c) {
  switch (c) {
    case Component::unorm8:
    case Component::snorm8:
    case Component::uint8:
    case Component::sint8: return 1;
    case Component::unorm16:
    case Component::snorm16:
    case Component::uint16:
    case Component::sint16:
    case Component::float16: return 2;
    case Component::uint32:
    case Component::sint32:
    case Component::float32: return 4;
  }
  return 4;
}

// Bytes of one pixel; 0 for a format metalsim does not support.
constexpr uint32_t bytes_per_pixel(PixelFormat f) {
  const PixelFormatInfo info = pixel_format_info(f);
  return info.channels * component_bytes(info.component);
}

constexpr SampleKind sample_kind(Component c) {
  switch (c) {
    case Component::uint8:
    case Component::uint16:
    case Component::uint32: return SampleKind::uint;
    case Component::sint8:
    case Component::sint16:
    case Component::sint32: return SampleKind::sint;
    default: return SampleKind::floating;
  }
}

// Whether a format has an alpha channel: clamp_to_zero samples outside it as (0, 0, 0, 0)
// when it has, (0, 0, 0, 1) when not (MSL specification, sampler address modes).
constexpr bool has_alpha(PixelFormat f) { return pixel_format_info(f).channels == 4; }

}  // namespace metalsim::abi
