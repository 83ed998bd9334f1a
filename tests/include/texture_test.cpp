// <metal_texture> without the host: textures over hand-made engine::TextureBindings. The
// specification's conversion corner cases (MSL 8.7: rounding to nearest even, NaN to 0,
// saturation, -128 and -127 both -1.0), component order, the constexpr sampler's defaults and
// arguments, the address modes, and which access allows which call (C++ constraints).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "test_util.h"

using namespace metal;

namespace engine = metalsim::engine;

namespace {

// A w x h texture over `bytes` (rows packed).
metalsim::abi::TextureBinding binding(metalsim::abi::PixelFormat format, uint32_t w, uint32_t h,
                                      void* bytes) {
  metalsim::abi::TextureBinding b;
  b.data = static_cast<char*>(bytes);
  b.width = w;
  b.height = h;
  b.bytes_per_row = uint64_t(w) * metalsim::abi::bytes_per_pixel(format);
  b.format = format;
  return b;
}

TEST(Texture, UnormWriteRoundsToNearestEvenClampsAndZeroesNaN) {
  uint8_t px[16] = {};
  const auto b = binding(metalsim::abi::PixelFormat::RGBA8Unorm, 1, 1, px);
  texture2d<float, access::write> t(&b, 0);
  t.write(float4(0.5f, 2.0f, -1.0f, std::numeric_limits<float>::quiet_NaN()), uint2(0, 0));
  EXPECT_EQ(px[0], 128);  // 127.5: to the even neighbour
  EXPECT_EQ(px[1], 255);
  EXPECT_EQ(px[2], 0);
  EXPECT_EQ(px[3], 0);
  uint16_t wide[8] = {};  // room for any pixel: the compiler cannot see which format is stored
  const auto w16 = binding(metalsim::abi::PixelFormat::R16Unorm, 1, 1, wide);
  texture2d<float, access::write>(&w16, 0).write(float4(0.5f), uint2(0, 0));
  EXPECT_EQ(wide[0], 32768);  // 32767.5
}

TEST(Texture, SnormReadAndWrite) {
  int8_t px[16] = {-128, -127};
  const auto b = binding(metalsim::abi::PixelFormat::RG8Snorm, 1, 1, px);
  texture2d<float, access::read_write> t(&b, 0);
  EXPECT_EQ(t.read(uint2(0, 0)).x, -1.0f);
  EXPECT_EQ(t.read(uint2(0, 0)).y, -1.0f);
  EXPECT_EQ(t.read(uint2(0, 0)).z, 0.0f);  // absent components 0, absent alpha 1
  EXPECT_EQ(t.read(uint2(0, 0)).w, 1.0f);
  t.write(float4(-0.5f, -3.0f, 0, 0), uint2(0, 0));
  EXPECT_EQ(px[0], -64);   // -63.5: to the even neighbour
  EXPECT_EQ(px[1], -127);  // clamped to -127, never -128
  px[0] = 127;
  EXPECT_EQ(t.read(uint2(0, 0)).x, 1.0f);
}

TEST(Texture, BgraIsReadAndWrittenInRgbaOrder) {
  uint8_t px[16] = {10, 20, 30, 255};  // stored B, G, R, A
  const auto b = binding(metalsim::abi::PixelFormat::BGRA8Unorm, 1, 1, px);
  texture2d<float, access::read_write> t(&b, 0);
  const float4 v = t.read(uint2(0, 0));
  EXPECT_EQ(v.x, 30.0f / 255.0f);
  EXPECT_EQ(v.z, 10.0f / 255.0f);
  t.write(float4(1.0f, 0.0f, 0.0f, 1.0f), uint2(0, 0));
  EXPECT_EQ(px[0], 0);
  EXPECT_EQ(px[2], 255);
}

TEST(Texture, IntegerWritesSaturateToTheStorage) {
  uint8_t u8[16] = {};
  const auto bu = binding(metalsim::abi::PixelFormat::R8Uint, 1, 1, u8);
  texture2d<uint, access::write>(&bu, 0).write(uint4(300u), uint2(0, 0));
  EXPECT_EQ(u8[0], 255);
  int8_t s8[16] = {};
  const auto bs = binding(metalsim::abi::PixelFormat::RGBA8Sint, 1, 1, s8);
  texture2d<int, access::read_write> ts(&bs, 0);
  ts.write(int4(-200, 200, -5, 7), uint2(0, 0));
  EXPECT_EQ(s8[0], -128);
  EXPECT_EQ(s8[1], 127);
  EXPECT_EQ(ts.read(uint2(0, 0)).z, -5);  // sign-extended
}

TEST(Texture, HalfStorageRoundsToNearestEvenAndKeepsInfinity) {
  uint16_t bits[8] = {};
  const auto b = binding(metalsim::abi::PixelFormat::RG16Float, 1, 1, bits);
  texture2d<float, access::read_write> t(&b, 0);
  t.write(float4(1.0f + 0x1p-11f, 1e6f, 0, 0), uint2(0, 0));  // a tie; past half's range
  EXPECT_EQ(t.read(uint2(0, 0)).x, 1.0f);
  EXPECT_TRUE(std::isinf(t.read(uint2(0, 0)).y));
  texture2d<half, access::read> h(&b, 0);
  EXPECT_EQ(float(h.read(uint2(0, 0)).x), 1.0f);
}

// The lane does not stop outside a dispatch: a read outside returns the zero pixel, a write is
// dropped, the bytes around the texture untouched.
TEST(Texture, OutsideADispatchReadsZeroAndDropsWrites) {
  float px[3] = {5.0f, 6.0f, 7.0f};
  const auto b = binding(metalsim::abi::PixelFormat::R32Float, 2, 1, px);
  texture2d<float, access::read_write> t(&b, 0);
  EXPECT_EQ(t.read(uint2(2, 0)).x, 0.0f);
  EXPECT_EQ(t.read(uint2(2, 0)).w, 1.0f);
  t.write(float4(9.0f), uint2(2, 0));
  t.write(float4(9.0f), uint2(0, 1));
  EXPECT_EQ(px[2], 7.0f);
  EXPECT_EQ(t.get_width(), 2u);
  EXPECT_EQ(t.get_height(), 1u);
}

// Level 1 of a 4x2 texture is 2x1, packed after level 0; a lod past the levels is outside.
TEST(Texture, MipmapLevels) {
  float px[8 + 2] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 11};
  auto b = binding(metalsim::abi::PixelFormat::R32Float, 4, 2, px);
  b.mipmap_levels = 2;
  b.level_offsets[1] = 8 * sizeof(float);
  texture2d<float, access::read_write> t(&b, 0);
  EXPECT_EQ(t.get_num_mip_levels(), 2u);
  EXPECT_EQ(t.get_width(1), 2u);
  EXPECT_EQ(t.get_height(1), 1u);
  EXPECT_EQ(t.read(uint2(1, 0), 1).x, 11.0f);
  EXPECT_EQ(t.read(uint2(2, 0), 1).x, 0.0f);  // outside level 1
  EXPECT_EQ(t.read(uint2(0, 0), 2).x, 0.0f);  // no level 2
  t.write(float4(-1.0f), uint2(0, 0), 1);
  EXPECT_EQ(px[8], -1.0f);
  EXPECT_EQ(px[0], 0.0f);
}

TEST(Sampler, ConstexprDefaultsAndArgumentsInAnyOrder) {
  constexpr sampler d(coord::normalized);
  static_assert(d.state.normalized);
  static_assert(d.state.s_address == metalsim::abi::SamplerAddress::clamp_to_edge);
  static_assert(d.state.mag_filter == metalsim::abi::SamplerFilter::nearest);
  static_assert(d.state.border == metalsim::abi::SamplerBorder::transparent_black);
  constexpr sampler s(border_color::opaque_white, filter::linear, coord::pixel,
                      address::clamp_to_border, t_address::repeat);
  static_assert(!s.state.normalized);
  static_assert(s.state.mag_filter == metalsim::abi::SamplerFilter::linear &&
                s.state.min_filter == metalsim::abi::SamplerFilter::linear);
  static_assert(s.state.s_address == metalsim::abi::SamplerAddress::clamp_to_border);
  static_assert(s.state.t_address == metalsim::abi::SamplerAddress::repeat);
  static_assert(s.state.border == metalsim::abi::SamplerBorder::opaque_white);
  SUCCEED();
}

TEST(Sampler, AddressModesOnTexelIndices) {
  using A = metalsim::abi::SamplerAddress;
  const int n = 4;
  const int in[] = {-5, -1, 0, 3, 4, 9};
  const int edge[] = {0, 0, 0, 3, 3, 3}, rep[] = {3, 3, 0, 3, 0, 1}, mir[] = {3, 0, 0, 3, 3, 1};
  const int mce[] = {3, 0, 0, 3, 3, 3}, zero[] = {-1, -1, 0, 3, -1, -1};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(detail::wrap_texel(in[k], n, A::clamp_to_edge), edge[k]) << in[k];
    EXPECT_EQ(detail::wrap_texel(in[k], n, A::repeat), rep[k]) << in[k];
    EXPECT_EQ(detail::wrap_texel(in[k], n, A::mirrored_repeat), mir[k]) << in[k];
    EXPECT_EQ(detail::wrap_texel(in[k], n, A::mirror_clamp_to_edge), mce[k]) << in[k];
    EXPECT_EQ(detail::wrap_texel(in[k], n, A::clamp_to_zero), zero[k]) << in[k];
  }
}

// Linear filtering between two texels of a 2x1 texture, at the centres and between them.
TEST(Sampler, LinearFilteringUsesTexelCentres) {
  float px[2] = {0.0f, 1.0f};
  const auto b = binding(metalsim::abi::PixelFormat::R32Float, 2, 1, px);
  texture2d<float> t(&b, 0);
  constexpr sampler s(filter::linear);
  EXPECT_EQ(t.sample(s, float2(0.25f, 0.5f)).x, 0.0f);  // texel 0's centre
  EXPECT_EQ(t.sample(s, float2(0.5f, 0.5f)).x, 0.5f);
  EXPECT_EQ(t.sample(s, float2(0.625f, 0.5f)).x, 0.75f);
  EXPECT_EQ(t.sample(s, float2(0.75f, 0.5f)).x, 1.0f);  // texel 1's centre
  constexpr sampler z(filter::linear, address::clamp_to_zero);
  EXPECT_EQ(t.sample(z, float2(1.0f, 0.5f)).x, 0.5f);  // half texel 1, half the border
  EXPECT_EQ(t.sample(z, float2(1.0f, 0.5f)).w, 1.0f);  // R32Float has no alpha
}

// What each access allows (MSL: read on every access but write, write on write and read_write,
// sample on access::sample of float or half).
template <class Tex>
concept can_read = requires(Tex t) { t.read(uint2(0, 0)); };
template <class Tex>
concept can_write = requires(Tex t) { t.write(float4(0), uint2(0, 0)); };
template <class Tex>
concept can_sample = requires(Tex t, sampler s) { t.sample(s, float2(0)); };
static_assert(can_read<texture2d<float, access::read>> &&
              !can_write<texture2d<float, access::read>>);
static_assert(can_write<texture2d<float, access::write>> &&
              !can_read<texture2d<float, access::write>>);
static_assert(can_read<texture2d<float, access::read_write>> &&
              can_write<texture2d<float, access::read_write>>);
static_assert(can_sample<texture2d<float>> && can_read<texture2d<float>> &&
              !can_sample<texture2d<float, access::read>>);
static_assert(!can_sample<texture2d<uint>>);

}  // namespace
