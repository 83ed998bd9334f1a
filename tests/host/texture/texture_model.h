#pragma once
// A scalar model of MSL texture semantics, written from the specification (MSL 8.7 "Texture
// Addressing and Conversion Rules", 6.12 texture functions, 2.10 sampler state) and not from
// metalsim's headers: pixels to values and back, address modes, nearest and linear filtering.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "metalsim/Metal.hpp"

namespace metalsim::testing::texture_model {

using Value = std::array<double, 4>;

enum class Stored { unorm8, snorm8, unorm16, snorm16, f16, f32, u8, s8, u16, s16, u32, s32 };

struct Format {
  MTL::PixelFormat format;
  Stored stored;
  int channels;
  bool bgra;
};

inline Format format_of(MTL::PixelFormat f) {
  switch (f) {
    case MTL::PixelFormatR8Unorm: return {f, Stored::unorm8, 1, false};
    case MTL::PixelFormatRG8Unorm: return {f, Stored::unorm8, 2, false};
    case MTL::PixelFormatRGBA8Unorm: return {f, Stored::unorm8, 4, false};
    case MTL::PixelFormatBGRA8Unorm: return {f, Stored::unorm8, 4, true};
    case MTL::PixelFormatR8Snorm: return {f, Stored::snorm8, 1, false};
    case MTL::PixelFormatRG8Snorm: return {f, Stored::snorm8, 2, false};
    case MTL::PixelFormatRGBA8Snorm: return {f, Stored::snorm8, 4, false};
    case MTL::PixelFormatR16Unorm: return {f, Stored::unorm16, 1, false};
    case MTL::PixelFormatRG16Snorm: return {f, Stored::snorm16, 2, false};
    case MTL::PixelFormatR16Float: return {f, Stored::f16, 1, false};
    case MTL::PixelFormatRG16Float: return {f, Stored::f16, 2, false};
    case MTL::PixelFormatRGBA16Float: return {f, Stored::f16, 4, false};
    case MTL::PixelFormatR32Float: return {f, Stored::f32, 1, false};
    case MTL::PixelFormatRG32Float: return {f, Stored::f32, 2, false};
    case MTL::PixelFormatRGBA32Float: return {f, Stored::f32, 4, false};
    case MTL::PixelFormatR8Uint: return {f, Stored::u8, 1, false};
    case MTL::PixelFormatRGBA8Uint: return {f, Stored::u8, 4, false};
    case MTL::PixelFormatR8Sint: return {f, Stored::s8, 1, false};
    case MTL::PixelFormatR16Uint: return {f, Stored::u16, 1, false};
    case MTL::PixelFormatRGBA16Uint: return {f, Stored::u16, 4, false};
    case MTL::PixelFormatRG16Sint: return {f, Stored::s16, 2, false};
    case MTL::PixelFormatR32Uint: return {f, Stored::u32, 1, false};
    case MTL::PixelFormatRGBA32Uint: return {f, Stored::u32, 4, false};
    case MTL::PixelFormatR32Sint: return {f, Stored::s32, 1, false};
    case MTL::PixelFormatRGBA32Sint: return {f, Stored::s32, 4, false};
    default: return {f, Stored::f32, 0, false};
  }
}

inline int component_size(Stored s) {
  switch (s) {
    case Stored::unorm8:
    case Stored::snorm8:
    case Stored::u8:
    case Stored::s8: return 1;
    case Stored::unorm16:
    case Stored::snorm16:
    case Stored::f16:
    case Stored::u16:
    case Stored::s16: return 2;
    default: return 4;
  }
}
inline int pixel_size(const Format& f) { return f.channels * component_size(f.stored); }
inline bool is_float_format(const Format& f) { return f.stored <= Stored::f32; }

// Component c (R, G, B, A order) of a pixel: its byte position.
inline int slot(const Format& f, int c) { return f.bgra && c != 1 && c != 3 ? 2 - c : c; }

template <class S>
S raw(const uint8_t* p) {
  S s;
  std::memcpy(&s, p, sizeof s);
  return s;
}

// Table 8.6 and 8.7.2/8.7.3/8.7.6: one stored component as a number.
inline double decode_component(Stored s, const uint8_t* p) {
  switch (s) {
    case Stored::unorm8: return double(float(raw<uint8_t>(p)) / 255.0f);
    case Stored::snorm8: return double(std::max(-1.0f, float(raw<int8_t>(p)) / 127.0f));
    case Stored::unorm16: return double(float(raw<uint16_t>(p)) / 65535.0f);
    case Stored::snorm16: return double(std::max(-1.0f, float(raw<int16_t>(p)) / 32767.0f));
    case Stored::f16: return double(raw<_Float16>(p));
    case Stored::f32: return double(raw<float>(p));
    case Stored::u8: return raw<uint8_t>(p);
    case Stored::s8: return raw<int8_t>(p);
    case Stored::u16: return raw<uint16_t>(p);
    case Stored::s16: return raw<int16_t>(p);
    case Stored::u32: return raw<uint32_t>(p);
    case Stored::s32: return raw<int32_t>(p);
  }
  return 0;
}

// A pixel as read: absent R, G, B are 0 and an absent alpha is 1 (6.12).
inline Value decode(const Format& f, const uint8_t* pixel) {
  Value v{0, 0, 0, 1};
  const int size = component_size(f.stored);
  for (int c = 0; c < f.channels; ++c) v[c] = decode_component(f.stored, pixel + slot(f, c) * size);
  return v;
}

template <class S>
void put(uint8_t* p, S s) {
  std::memcpy(p, &s, sizeof s);
}

// Table 8.7: clamp, scale, round to nearest even; NaN becomes 0.
inline long to_normalized(double x, double scale, double low) {
  if (std::isnan(x)) return 0;
  return std::lrint(std::min(std::max(x * scale, low), scale));
}

inline long saturate(double x, double lo, double hi) { return long(std::min(std::max(x, lo), hi)); }

inline void encode_component(Stored s, double x, uint8_t* p) {
  switch (s) {
    case Stored::unorm8: put(p, uint8_t(to_normalized(float(x), 255.0, 0.0))); return;
    case Stored::snorm8: put(p, int8_t(to_normalized(float(x), 127.0, -127.0))); return;
    case Stored::unorm16: put(p, uint16_t(to_normalized(float(x), 65535.0, 0.0))); return;
    case Stored::snorm16: put(p, int16_t(to_normalized(float(x), 32767.0, -32767.0))); return;
    case Stored::f16: put(p, _Float16(float(x))); return;
    case Stored::f32: put(p, float(x)); return;
    case Stored::u8: put(p, uint8_t(saturate(x, 0, 255))); return;  // 8.7.6: saturated
    case Stored::s8: put(p, int8_t(saturate(x, -128, 127))); return;
    case Stored::u16: put(p, uint16_t(saturate(x, 0, 65535))); return;
    case Stored::s16: put(p, int16_t(saturate(x, -32768, 32767))); return;
    case Stored::u32: put(p, uint32_t(int64_t(x))); return;
    case Stored::s32: put(p, int32_t(int64_t(x))); return;
  }
}

inline void encode(const Format& f, const Value& v, uint8_t* pixel) {
  const int size = component_size(f.stored);
  for (int c = 0; c < f.channels; ++c) encode_component(f.stored, v[c], pixel + slot(f, c) * size);
}

// ------------------------------ sampling
struct Sampler {
  bool normalized = true;
  bool linear = false;
  MTL::SamplerAddressMode s = MTL::SamplerAddressModeClampToEdge;
  MTL::SamplerAddressMode t = MTL::SamplerAddressModeClampToEdge;
  MTL::SamplerBorderColor border = MTL::SamplerBorderColorTransparentBlack;
};

// A texel column or row index after the address mode; nullopt-like -1 for "outside: border".
inline long address(long i, long n, MTL::SamplerAddressMode m) {
  switch (m) {
    case MTL::SamplerAddressModeClampToEdge: return std::clamp(i, 0L, n - 1);
    case MTL::SamplerAddressModeRepeat: {
      long r = i % n;
      return r < 0 ? r + n : r;
    }
    case MTL::SamplerAddressModeMirrorRepeat: {
      long period = i % (2 * n);
      if (period < 0) period += 2 * n;
      return period < n ? period : 2 * n - 1 - period;
    }
    case MTL::SamplerAddressModeMirrorClampToEdge: return std::min(i < 0 ? -i - 1 : i, n - 1);
    default: return i >= 0 && i < n ? i : -1;  // clamp to zero / border
  }
}

// An image of decoded pixels, row-major.
struct Image {
  long width = 0, height = 0;
  Format format{};
  std::vector<Value> pixels;
  const Value& at(long x, long y) const { return pixels[size_t(y * width + x)]; }
};

inline Value border(const Sampler& s, MTL::SamplerAddressMode m, const Format& f) {
  if (m == MTL::SamplerAddressModeClampToZero) return {0, 0, 0, f.channels == 4 ? 0.0 : 1.0};
  if (s.border == MTL::SamplerBorderColorOpaqueBlack) return {0, 0, 0, 1};
  if (s.border == MTL::SamplerBorderColorOpaqueWhite) return {1, 1, 1, 1};
  return {0, 0, 0, 0};
}

inline Value texel(const Image& img, const Sampler& s, long i, long j) {
  const long x = address(i, img.width, s.s), y = address(j, img.height, s.t);
  if (x < 0) return border(s, s.s, img.format);
  if (y < 0) return border(s, s.t, img.format);
  return img.at(x, y);
}

// Level 0: the texel containing (u, v) (nearest), or the four whose centres (i + 0.5, j + 0.5)
// surround it, weighted by distance (linear).
inline Value sample(const Image& img, const Sampler& s, double cx, double cy) {
  const double u = s.normalized ? cx * double(img.width) : cx;
  const double v = s.normalized ? cy * double(img.height) : cy;
  if (!s.linear) return texel(img, s, long(std::floor(u)), long(std::floor(v)));
  const double i0 = std::floor(u - 0.5), j0 = std::floor(v - 0.5);
  const double a = u - 0.5 - i0, b = v - 0.5 - j0;
  const long i = long(i0), j = long(j0);
  Value out{};
  for (int c = 0; c < 4; ++c)
    out[c] = (1 - a) * (1 - b) * texel(img, s, i, j)[c] + a * (1 - b) * texel(img, s, i + 1, j)[c] +
             (1 - a) * b * texel(img, s, i, j + 1)[c] + a * b * texel(img, s, i + 1, j + 1)[c];
  return out;
}

}  // namespace metalsim::testing::texture_model
