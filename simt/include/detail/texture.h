#pragma once
// MSL textures (spec 2.9, 6.12; docs/textures.md): texture1d, texture2d and texture_buffer over
// an ::metalsim::abi::TextureBinding. Coordinates are checked before any byte is touched:
// outside the texture, the engine files bounds.texture and stops the lane (mem check on), or the
// read returns a zero pixel and the write is dropped (mem check off). The `site` parameter,
// defaulted, is the kernel's call: with the front's #line directives, its .metal line.
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "detail/sampler.h"
#include "detail/sync_point.h"
#include "detail/texel.h"
#include "simt/abi/texture_binding.h"

namespace metal {

// ------------------------------ access: what a kernel may do with a texture
enum class access : uint8_t { sample = 0, read = 1, write = 2, read_write = 3 };

namespace detail {

template <class T>
concept texture_element =
    std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, int> ||
    std::is_same_v<T, uint> || std::is_same_v<T, short> || std::is_same_v<T, ushort>;

template <class T>
constexpr ::metalsim::abi::SampleKind sample_kind_of() {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, half>)
    return ::metalsim::abi::SampleKind::floating;
  else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, short>)
    return ::metalsim::abi::SampleKind::sint;
  else return ::metalsim::abi::SampleKind::uint;
}

constexpr bool readable(access a) { return a != access::write; }
constexpr bool writable(access a) { return a == access::write || a == access::read_write; }

// A texture parameter's reflection (texture_binding.h): its kind, element and access.
template <::metalsim::abi::TextureKind kind, class T, access a>
inline constexpr ::metalsim::abi::TextureArgInfo texture_reflection{
    kind, sample_kind_of<T>(), ::metalsim::abi::TextureAccess(a)};

// What every texture type shares: its binding, argument index and lane, bounds and addresses.
// The texture types inherit the constructor.
class texture_base {
 public:
  texture_base(const ::metalsim::abi::TextureBinding* t, uint32_t index,
               uint32_t lane = ::metalsim::abi::kUnknownLane)
      : t_(t), index_(index), lane_(lane) {}

 protected:
  uint32_t width_at(uint32_t lod) const { return level_size(t_->width, lod); }
  uint32_t height_at(uint32_t lod) const { return level_size(t_->height, lod); }
  bool inside(uint32_t x, uint32_t y, uint32_t lod) const {
    return lod < t_->mipmap_levels && x < width_at(lod) && y < height_at(lod);
  }
  char* address(uint32_t x, uint32_t y, uint32_t lod) const {
    const uint64_t row =
        lod == 0 ? t_->bytes_per_row
                 : uint64_t(width_at(lod)) * ::metalsim::abi::bytes_per_pixel(t_->format);
    return t_->data + t_->level_offset(lod) + y * row +
           uint64_t(x) * ::metalsim::abi::bytes_per_pixel(t_->format);
  }
  // Cold: files bounds.texture (and does not return) when the mem check is on.
  [[gnu::noinline, gnu::cold]] void out_of_bounds(uint32_t x, uint32_t y, uint32_t lod, bool write,
                                                  std::source_location site) const {
    ::metalsim::abi::texture_out_of_bounds({t_, index_, x, y, lod, write, lane_}, site);
  }
  template <class T>
  vec<T, 4> read_at(uint32_t x, uint32_t y, uint32_t lod, std::source_location site) const {
    if (!inside(x, y, lod)) [[unlikely]] {
      out_of_bounds(x, y, lod, false, site);
      return zero_texel<T>(t_->format);
    }
    return load_texel<T>(address(x, y, lod), t_->format);
  }
  template <class T>
  void write_at(vec<T, 4> color, uint32_t x, uint32_t y, uint32_t lod,
                std::source_location site) const {
    if (!inside(x, y, lod)) [[unlikely]] {
      out_of_bounds(x, y, lod, true, site);
      return;
    }
    store_texel<T>(address(x, y, lod), t_->format, color);
  }
  // Level 0 sampled at `c` plus `offset` texels, `height` 0 for a 1D texture (sample_texels).
  vec<float, 4> sample_at(sampler s, float2 c, int2 offset, uint32_t height) const {
    return sample_texels(s, c, offset, t_->width, height, ::metalsim::abi::has_alpha(t_->format),
                         [this](int x, int y) { return fetch(x, y); });
  }
  // The pixel at (x, y) of level 0 for sampling: the caller has wrapped the coordinates.
  vec<float, 4> fetch(int x, int y) const {
    return vec<float, 4>(load_texel<float>(address(uint32_t(x), uint32_t(y), 0), t_->format));
  }
  static uint32_t level_size(uint32_t n, uint32_t lod) {
    const uint32_t s = lod < 32 ? n >> lod : 0;
    return s == 0 ? 1 : s;
  }

  const ::metalsim::abi::TextureBinding* t_;
  uint32_t index_;
  uint32_t lane_;
};

}  // namespace detail

// ------------------------------ texture2d
template <class T, access a = access::sample>
  requires detail::texture_element<T>
class texture2d : detail::texture_base {
 public:
  static constexpr auto ms_reflection =
      detail::texture_reflection<::metalsim::abi::TextureKind::texture2d, T, a>;

  using texture_base::texture_base;

  vec<T, 4> read(uint2 coord, uint lod = 0, METALSIM_CALL_SITE) const
    requires(detail::readable(a))
  {
    return read_at<T>(coord.x, coord.y, lod, site);
  }
  vec<T, 4> read(ushort2 coord, ushort lod = 0, METALSIM_CALL_SITE) const
    requires(detail::readable(a))
  {
    return read_at<T>(coord.x, coord.y, lod, site);
  }
  void write(vec<T, 4> color, uint2 coord, uint lod = 0, METALSIM_CALL_SITE) const
    requires(detail::writable(a))
  {
    write_at<T>(color, coord.x, coord.y, lod, site);
  }
  void write(vec<T, 4> color, ushort2 coord, ushort lod = 0, METALSIM_CALL_SITE) const
    requires(detail::writable(a))
  {
    write_at<T>(color, coord.x, coord.y, lod, site);
  }
  // Level 0, filtered by the sampler's magnification filter (docs/textures.md).
  vec<T, 4> sample(sampler s, float2 coord, int2 offset = int2(0)) const
    requires(a == access::sample &&
             detail::sample_kind_of<T>() == ::metalsim::abi::SampleKind::floating)
  {
    return vec<T, 4>(sample_at(s, coord, offset, t_->height));
  }
  uint get_width(uint lod = 0) const { return width_at(lod); }
  uint get_height(uint lod = 0) const { return height_at(lod); }
  uint get_num_mip_levels() const { return t_->mipmap_levels; }
  // Orders this thread's writes before its later reads (read_write textures): memory here is
  // always coherent, so nothing to do.
  void fence() const {}
};

// ------------------------------ texture1d
template <class T, access a = access::sample>
  requires detail::texture_element<T>
class texture1d : detail::texture_base {
 public:
  static constexpr auto ms_reflection =
      detail::texture_reflection<::metalsim::abi::TextureKind::texture1d, T, a>;

  using texture_base::texture_base;

  vec<T, 4> read(uint coord, uint lod = 0, METALSIM_CALL_SITE) const
    requires(detail::readable(a))
  {
    return read_at<T>(coord, 0, lod, site);
  }
  void write(vec<T, 4> color, uint coord, uint lod = 0, METALSIM_CALL_SITE) const
    requires(detail::writable(a))
  {
    write_at<T>(color, coord, 0, lod, site);
  }
  vec<T, 4> sample(sampler s, float coord) const
    requires(a == access::sample &&
             detail::sample_kind_of<T>() == ::metalsim::abi::SampleKind::floating)
  {
    return vec<T, 4>(sample_at(s, float2(coord, 0.0f), int2(0), 0));
  }
  uint get_width(uint lod = 0) const { return width_at(lod); }
  uint get_num_mip_levels() const { return t_->mipmap_levels; }
  void fence() const {}
};

// ------------------------------ texture_buffer: a texture over a buffer's bytes, one row
template <class T, access a = access::read>
  requires detail::texture_element<T>
class texture_buffer : detail::texture_base {
 public:
  static constexpr auto ms_reflection =
      detail::texture_reflection<::metalsim::abi::TextureKind::texture_buffer, T, a>;

  using texture_base::texture_base;

  vec<T, 4> read(uint coord, METALSIM_CALL_SITE) const
    requires(detail::readable(a))
  {
    return read_at<T>(coord, 0, 0, site);
  }
  void write(vec<T, 4> color, uint coord, METALSIM_CALL_SITE) const
    requires(detail::writable(a))
  {
    write_at<T>(color, coord, 0, 0, site);
  }
  uint get_width() const { return width_at(0); }
  void fence() const {}
};

}  // namespace metal
