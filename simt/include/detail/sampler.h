#pragma once
// MSL samplers (spec 2.10; docs/textures.md): the sampler state enums, `sampler` declared in
// kernel code (`constexpr sampler s(coord::normalized, address::repeat, filter::linear);`, the
// arguments in any order, every state defaulted as the specification says) or bound by the host
// ([[sampler(N)]], an ::metalsim::abi::SamplerBinding), and the filtering textures sample with.
#include <cstdint>
#include <type_traits>

#include "detail/scalar.h"
#include "detail/type_traits.h"
#include "simt/abi/texture_binding.h"

namespace metal {

// ------------------------------ sampler state enums (the engine's numbers, Metal's)
enum class coord : uint8_t { normalized = 0, pixel = 1 };
// The four address enums take the engine's list of modes (simt/abi/texture_binding.h).
enum class address : uint8_t { METALSIM_SAMPLER_ADDRESS_MODES };
enum class s_address : uint8_t { METALSIM_SAMPLER_ADDRESS_MODES };
enum class t_address : uint8_t { METALSIM_SAMPLER_ADDRESS_MODES };
enum class r_address : uint8_t { METALSIM_SAMPLER_ADDRESS_MODES };
enum class filter : uint8_t { nearest = 0, linear = 1 };
enum class mag_filter : uint8_t { nearest = 0, linear = 1 };
enum class min_filter : uint8_t { nearest = 0, linear = 1 };
// Accepted and stored nowhere: a compute kernel's sample has no derivatives and reads level 0,
// whatever the mipmap filter.
enum class mip_filter : uint8_t { none = 0, nearest = 1, linear = 2 };
enum class border_color : uint8_t { transparent_black = 0, opaque_black = 1, opaque_white = 2 };

// ------------------------------ sampler
namespace detail {
// The sampler state enums a constexpr sampler takes, in any order.
template <class T>
concept sampler_argument =
    std::is_same_v<T, coord> || std::is_same_v<T, address> || std::is_same_v<T, s_address> ||
    std::is_same_v<T, t_address> || std::is_same_v<T, r_address> || std::is_same_v<T, filter> ||
    std::is_same_v<T, mag_filter> || std::is_same_v<T, min_filter> ||
    std::is_same_v<T, mip_filter> || std::is_same_v<T, border_color>;
}  // namespace detail

struct sampler {
  ::metalsim::abi::SamplerBinding state{};

  constexpr sampler() = default;
  template <class... Ts>
    requires(sizeof...(Ts) > 0 && (detail::sampler_argument<Ts> && ...))
  constexpr sampler(Ts... args) {  // NOLINT: `constexpr sampler s(filter::linear);`
    (set(args), ...);
  }
  // [[sampler(N)]]: the state the host bound (MTL::SamplerState).
  explicit sampler(const ::metalsim::abi::SamplerBinding* bound) : state(*bound) {}

 private:
  static constexpr ::metalsim::abi::SamplerAddress addr(auto a) {
    return ::metalsim::abi::SamplerAddress(uint8_t(a));
  }
  static constexpr ::metalsim::abi::SamplerFilter filt(auto f) {
    return ::metalsim::abi::SamplerFilter(uint8_t(f));
  }
  constexpr void set(coord c) { state.normalized = c == coord::normalized; }
  constexpr void set(address a) { state.s_address = state.t_address = state.r_address = addr(a); }
  constexpr void set(s_address a) { state.s_address = addr(a); }
  constexpr void set(t_address a) { state.t_address = addr(a); }
  constexpr void set(r_address a) { state.r_address = addr(a); }
  constexpr void set(filter f) { state.mag_filter = state.min_filter = filt(f); }
  constexpr void set(mag_filter f) { state.mag_filter = filt(f); }
  constexpr void set(min_filter f) { state.min_filter = filt(f); }
  constexpr void set(mip_filter) {}
  constexpr void set(border_color b) {
    state.border = ::metalsim::abi::SamplerBorder(uint8_t(b));
  }
};

namespace detail {

// ------------------------------ filtering (level 0)
// An integer texel coordinate wrapped into [0, n) by an address mode; -1 when the sample lies
// outside and takes the border colour (clamp_to_zero, clamp_to_border).
inline int wrap_texel(int i, int n, ::metalsim::abi::SamplerAddress mode) {
  auto mod = [](int a, int m) { return ((a % m) + m) % m; };
  switch (mode) {
    case ::metalsim::abi::SamplerAddress::clamp_to_edge: return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case ::metalsim::abi::SamplerAddress::repeat: return mod(i, n);
    case ::metalsim::abi::SamplerAddress::mirrored_repeat: {
      const int t = mod(i, 2 * n);
      return t < n ? t : 2 * n - 1 - t;
    }
    case ::metalsim::abi::SamplerAddress::mirror_clamp_to_edge: {
      const int m = i < 0 ? -1 - i : i;
      return m >= n ? n - 1 : m;
    }
    case ::metalsim::abi::SamplerAddress::clamp_to_zero:
    case ::metalsim::abi::SamplerAddress::clamp_to_border: return i < 0 || i >= n ? -1 : i;
  }
  return 0;
}

inline vec<float, 4> border_texel(const ::metalsim::abi::SamplerBinding& s,
                                  ::metalsim::abi::SamplerAddress mode, bool alpha) {
  if (mode == ::metalsim::abi::SamplerAddress::clamp_to_zero)
    return vec<float, 4>(0.0f, 0.0f, 0.0f, alpha ? 0.0f : 1.0f);
  switch (s.border) {
    case ::metalsim::abi::SamplerBorder::opaque_black:
      return vec<float, 4>(0.0f, 0.0f, 0.0f, 1.0f);
    case ::metalsim::abi::SamplerBorder::opaque_white:
      return vec<float, 4>(1.0f, 1.0f, 1.0f, 1.0f);
    default: return vec<float, 4>(0.0f);
  }
}

// A coordinate the float-to-int conversion can take (the specification forbids NaN and INF).
inline float finite_coordinate(float u) {
  constexpr float kLimit = 16777216.0f;
  return __builtin_isnan(u) ? 0.0f : __builtin_fminf(__builtin_fmaxf(u, -kLimit), kLimit);
}

// Samples a texture of width x height texels (height 0: a 1D texture) at `c`, plus `offset`
// texels, with the sampler's magnification filter: at level 0 of a compute kernel's sample (no
// derivatives, LOD 0) the magnification filter applies. Linear filtering weighs the four texels
// around c - 0.5 (texel centres at i + 0.5), each wrapped on its own.
template <class Fetch>
vec<float, 4> sample_texels(const sampler& smp, float2 c, int2 offset, uint32_t width,
                            uint32_t height, bool alpha, Fetch fetch) {
  const ::metalsim::abi::SamplerBinding& s = smp.state;
  const bool one_d = height == 0;
  const int w = int(width), h = one_d ? 1 : int(height);
  float u = finite_coordinate(s.normalized ? c.x * float(w) : c.x) + float(offset.x);
  float v = one_d ? 0.5f : finite_coordinate(s.normalized ? c.y * float(h) : c.y) + float(offset.y);
  auto texel = [&](int i, int j) {
    const int x = wrap_texel(i, w, s.s_address);
    const int y = one_d ? 0 : wrap_texel(j, h, s.t_address);
    if (x < 0) return border_texel(s, s.s_address, alpha);
    if (y < 0) return border_texel(s, s.t_address, alpha);
    return fetch(x, y);
  };
  if (s.mag_filter == ::metalsim::abi::SamplerFilter::nearest)
    return texel(int(__builtin_floorf(u)), int(__builtin_floorf(v)));
  u -= 0.5f;
  v -= 0.5f;
  const float fi = __builtin_floorf(u), fj = __builtin_floorf(v);
  const float a = u - fi, b = one_d ? 0.0f : v - fj;
  const int i = int(fi), j = int(fj);
  const vec<float, 4> t00 = texel(i, j), t10 = texel(i + 1, j);
  const vec<float, 4> t01 = one_d ? t00 : texel(i, j + 1);
  const vec<float, 4> t11 = one_d ? t10 : texel(i + 1, j + 1);
  vec<float, 4> out;
  for (int k = 0; k < 4; ++k)
    out[k] =
        (1 - a) * (1 - b) * t00[k] + a * (1 - b) * t10[k] + (1 - a) * b * t01[k] + a * b * t11[k];
  return out;
}

}  // namespace detail
}  // namespace metal
