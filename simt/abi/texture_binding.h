#pragma once
// Textures and samplers as a dispatch binds them (docs/textures.md): what the host puts in
// BoundArgs::textures / samplers for [[texture(N)]] and [[sampler(N)]] arguments, and the
// reflection of such an argument. The MSL headers (detail/texture.h, detail/sampler.h) read
// them; the host (host/src/texture.cpp, sampler.cpp) fills them.
#include <cstdint>
#include <source_location>

#include "simt/abi/pixel_format.h"

namespace metalsim::abi {

inline constexpr uint32_t kMaxTextureBindings = 31;  // texture(0) .. texture(30)
inline constexpr uint32_t kMaxSamplerBindings = 16;  // sampler(0) .. sampler(15), as Metal

// Metal's MTLTextureType numbers, for the kinds metalsim runs.
enum class TextureKind : uint8_t { texture1d = 0, texture2d = 2, texture_buffer = 9 };

// MSL's access qualifiers (metal::access uses the same numbers).
enum class TextureAccess : uint8_t { sample = 0, read = 1, write = 2, read_write = 3 };

inline constexpr uint32_t kMaxMipmapLevels = 16;  // 32768 pixels wide

// One texture's storage: rows of bytes_per_row bytes, pixels of bytes_per_pixel(format).
struct TextureBinding {
  char* data = nullptr;
  uint32_t width = 0;
  uint32_t height = 1;
  uint64_t bytes_per_row = 0;
  PixelFormat format = PixelFormat::Invalid;
  TextureKind kind = TextureKind::texture2d;
  uint32_t mipmap_levels = 1;
  // Where each mipmap level starts in `data`; levels after 0 are packed (rows of their width).
  uint64_t level_offsets[kMaxMipmapLevels] = {};
  uint64_t level_offset(uint32_t level) const {
    return level < kMaxMipmapLevels ? level_offsets[level] : 0;
  }
};

// A texture parameter's type, read from the MSL class (texture2d<T, a>::ms_reflection).
struct TextureArgInfo {
  TextureKind kind = TextureKind::texture2d;
  SampleKind sample = SampleKind::floating;
  TextureAccess access = TextureAccess::sample;
};

// Sampler state: Metal's MTLSamplerAddressMode, MTLSamplerMinMagFilter, MTLSamplerMipFilter and
// MTLSamplerBorderColor numbers (metal::address, filter, ... use the same). The address modes are
// one list, for SamplerAddress and for MSL's address, s_address, t_address and r_address
// (detail/sampler.h): four types that Metal keeps apart, with the same enumerators.
#define METALSIM_SAMPLER_ADDRESS_MODES                                                             \
  clamp_to_edge = 0, mirror_clamp_to_edge = 1, repeat = 2, mirrored_repeat = 3, clamp_to_zero = 4, \
  clamp_to_border = 5
enum class SamplerAddress : uint8_t { METALSIM_SAMPLER_ADDRESS_MODES };
enum class SamplerFilter : uint8_t { nearest = 0, linear = 1 };
enum class SamplerBorder : uint8_t { transparent_black = 0, opaque_black = 1, opaque_white = 2 };

// Defaults as the MSL specification gives them for a sampler declared in a kernel.
struct SamplerBinding {
  bool normalized = true;
  SamplerAddress s_address = SamplerAddress::clamp_to_edge;
  SamplerAddress t_address = SamplerAddress::clamp_to_edge;
  SamplerAddress r_address = SamplerAddress::clamp_to_edge;
  SamplerFilter mag_filter = SamplerFilter::nearest;
  SamplerFilter min_filter = SamplerFilter::nearest;
  SamplerBorder border = SamplerBorder::transparent_black;
};

// ------------------------------ bounds.texture
// A read or write outside a texture, as the MSL headers see it (texture_fault.cpp).
inline constexpr uint32_t kUnknownLane = ~0u;
struct TextureAccessFault {
  const TextureBinding* texture = nullptr;
  uint32_t index = 0;  // N of [[texture(N)]]
  uint32_t x = 0, y = 0, lod = 0;
  bool write = false;
  uint32_t lane = kUnknownLane;  // the lane body knows it (lane loops); fibers know their own
};

// Files bounds.texture and stops the lane (as a device bounds fault does) when the mem check is
// on: it then does not return. Returns when the check is off: the caller reads zero or drops the
// write, and never touches memory outside the texture.
void texture_out_of_bounds(const TextureAccessFault& fault, std::source_location site);

}  // namespace metalsim::abi
