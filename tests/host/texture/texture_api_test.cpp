// The texture host API (MTLTexture.hpp, MTLSampler.hpp): descriptors, replaceRegion/getBytes
// round trips with padded rows and sub-regions, textures over buffers, mipmap levels, encoder
// limits, and the validation errors of [[texture(N)]] and [[sampler(N)]] arguments.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>

#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

NS::SharedPtr<MTL::Texture> make(Harness& h, MTL::PixelFormat format, NS::UInteger w,
                                 NS::UInteger ht, MTL::TextureUsage usage) {
  auto* d = MTL::TextureDescriptor::texture2DDescriptor(format, w, ht, false);
  d->setUsage(usage);
  return NS::TransferPtr(h.device()->newTexture(d));
}

constexpr MTL::TextureUsage kReadWrite = MTL::TextureUsage(3);

TEST(TextureApi, DescriptorDefaultsAndMipmapCount) {
  auto d = NS::TransferPtr(MTL::TextureDescriptor::alloc()->init());
  EXPECT_EQ(d->textureType(), MTL::TextureType2D);
  EXPECT_EQ(d->usage(), MTL::TextureUsageShaderRead);
  EXPECT_EQ(d->storageMode(), MTL::StorageModeShared);
  EXPECT_EQ(d->mipmapLevelCount(), 1u);
  auto* m = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatR32Float, 40, 9, true);
  EXPECT_EQ(m->mipmapLevelCount(), 6u);  // 40, 20, 10, 5, 2, 1
  auto* b = MTL::TextureDescriptor::textureBufferDescriptor(
      MTL::PixelFormatRGBA8Uint, 100, MTL::ResourceStorageModeShared, kReadWrite);
  EXPECT_EQ(b->textureType(), MTL::TextureTypeTextureBuffer);
  EXPECT_EQ(b->width(), 100u);
  EXPECT_EQ(b->usage(), kReadWrite);
}

TEST(TextureApi, NewTextureReportsItsShape) {
  Harness h;
  auto t = make(h, MTL::PixelFormatRG16Float, 7, 5, kReadWrite);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->width(), 7u);
  EXPECT_EQ(t->height(), 5u);
  EXPECT_EQ(t->pixelFormat(), MTL::PixelFormatRG16Float);
  EXPECT_EQ(t->textureType(), MTL::TextureType2D);
  EXPECT_EQ(t->usage(), kReadWrite);
  EXPECT_EQ(t->buffer(), nullptr);
}

TEST(TextureApi, UnsupportedDescriptorsGiveNull) {
  Harness h;
  auto* d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormat(71), 4, 4, false);
  EXPECT_EQ(h.device()->newTexture(d), nullptr);  // RGBA8Unorm_sRGB: not supported
  d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatR8Unorm, 4, 4, false);
  d->setTextureType(MTL::TextureType3D);
  EXPECT_EQ(h.device()->newTexture(d), nullptr);
  d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatR8Unorm, 0, 4, false);
  EXPECT_EQ(h.device()->newTexture(d), nullptr);
}

// Rows of 28 bytes (7 RGBA8 pixels) passed with a 40-byte pitch, then a 3x2 region replaced.
TEST(TextureApi, ReplaceRegionGetBytesRoundTripWithPaddedRows) {
  Harness h;
  auto t = make(h, MTL::PixelFormatRGBA8Unorm, 7, 5, kReadWrite);
  std::vector<uint8_t> padded(40 * 5, 0xEE);
  for (int y = 0; y < 5; ++y)
    for (int b = 0; b < 28; ++b) padded[size_t(y * 40 + b)] = uint8_t(y * 28 + b);
  t->replaceRegion(MTL::Region::Make2D(0, 0, 7, 5), 0, padded.data(), 40);
  std::vector<uint8_t> back(48 * 5, 0x11);
  t->getBytes(back.data(), 48, MTL::Region::Make2D(0, 0, 7, 5), 0);
  for (int y = 0; y < 5; ++y) {
    EXPECT_EQ(0, std::memcmp(&back[size_t(y * 48)], &padded[size_t(y * 40)], 28)) << y;
    EXPECT_EQ(back[size_t(y * 48 + 28)], 0x11) << "getBytes wrote past the row";
  }
  const uint8_t patch[2][12] = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                {13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}};
  t->replaceRegion(MTL::Region::Make2D(2, 1, 3, 2), 0, patch, 12);
  std::vector<uint8_t> all(28 * 5);
  t->getBytes(all.data(), 28, MTL::Region::Make2D(0, 0, 7, 5), 0);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x)
      for (int c = 0; c < 4; ++c) {
        const bool inside = y >= 1 && y < 3 && x >= 2 && x < 5;
        const uint8_t want = inside ? patch[y - 1][(x - 2) * 4 + c] : uint8_t(y * 28 + x * 4 + c);
        ASSERT_EQ(all[size_t(y * 28 + x * 4 + c)], want) << x << "," << y << "," << c;
      }
  uint8_t sub[2 * 8];
  t->getBytes(sub, 8, MTL::Region::Make2D(5, 3, 2, 2), 0);
  EXPECT_EQ(sub[0], uint8_t(3 * 28 + 20));
  EXPECT_EQ(sub[8 + 7], uint8_t(4 * 28 + 27));
}

TEST(TextureApi, RegionOutsideCopiesNothing) {
  Harness h;
  auto t = make(h, MTL::PixelFormatR32Float, 4, 4, kReadWrite);
  const float ones[25] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                          1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  t->replaceRegion(MTL::Region::Make2D(2, 2, 3, 3), 0, ones, 12);
  float back[16];
  t->getBytes(back, 16, MTL::Region::Make2D(0, 0, 4, 4), 0);
  for (float v : back) EXPECT_EQ(v, 0.0f);
}

TEST(TextureApi, MipmapLevelsRoundTrip) {
  Harness h;
  auto* d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatR16Uint, 8, 6, true);
  auto t = NS::TransferPtr(h.device()->newTexture(d));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->mipmapLevelCount(), 4u);  // 8x6, 4x3, 2x1, 1x1
  std::vector<uint16_t> l0(48), l1(12), l2(2);
  std::iota(l0.begin(), l0.end(), 100);
  std::iota(l1.begin(), l1.end(), 500);
  std::iota(l2.begin(), l2.end(), 900);
  t->replaceRegion(MTL::Region::Make2D(0, 0, 8, 6), 0, l0.data(), 16);
  t->replaceRegion(MTL::Region::Make2D(0, 0, 4, 3), 1, l1.data(), 8);
  t->replaceRegion(MTL::Region::Make2D(0, 0, 2, 1), 2, l2.data(), 4);
  std::vector<uint16_t> b0(48), b1(12), b2(2);
  t->getBytes(b0.data(), 16, MTL::Region::Make2D(0, 0, 8, 6), 0);
  t->getBytes(b1.data(), 8, MTL::Region::Make2D(0, 0, 4, 3), 1);
  t->getBytes(b2.data(), 4, MTL::Region::Make2D(0, 0, 2, 1), 2);
  EXPECT_EQ(b0, l0);
  EXPECT_EQ(b1, l1);
  EXPECT_EQ(b2, l2);
}

// A 2D texture over a buffer: rows bytesPerRow apart from an offset; its bytes are the buffer's.
TEST(TextureApi, TextureOverABuffer) {
  Harness h;
  auto buffer = h.buffer(size_t(64 + 32 * 3));
  auto* d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatR32Uint, 5, 3, false);
  auto t = NS::TransferPtr(buffer->newTexture(d, 64, 32));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->buffer(), buffer.get());
  EXPECT_EQ(t->bufferOffset(), 64u);
  EXPECT_EQ(t->bufferBytesPerRow(), 32u);
  const uint32_t row[5] = {1, 2, 3, 4, 5};
  t->replaceRegion(MTL::Region::Make2D(0, 2, 5, 1), 0, row, 20);
  const auto* words = static_cast<const uint32_t*>(buffer->contents());
  EXPECT_EQ(words[(64 + 2 * 32) / 4], 1u);
  EXPECT_EQ(words[(64 + 2 * 32) / 4 + 4], 5u);
  // Too short a pitch, or rows past the buffer: refused.
  EXPECT_EQ(buffer->newTexture(d, 64, 16), nullptr);
  EXPECT_EQ(buffer->newTexture(d, 96, 32), nullptr);
}

// ------------------------------ encoder and validation

TEST(TextureApi, BindingIndicesOverTheLimitsAreMisuse) {
  Harness h;
  auto t = make(h, MTL::PixelFormatR32Float, 16, 4, kReadWrite);
  auto sd = NS::TransferPtr(MTL::SamplerDescriptor::alloc()->init());
  auto s = NS::TransferPtr(h.device()->newSamplerState(sd.get()));
  MTL::CommandBuffer* cb = h.run(
      "texture_mirror_affine",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setTexture(t.get(), 31);
        e->setSamplerState(s.get(), 16);
      },
      MTL::Size(1, 1, 1), MTL::Size(1, 1, 1));
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const std::string text = Harness::reports(cb);
  EXPECT_NE(text.find("setTexture: index 31 is over 30"), std::string::npos) << text;
  EXPECT_NE(text.find("setSamplerState: index 16 is over 15"), std::string::npos) << text;
}

// Runs texture_resample with the given bindings and returns the report text (one expected).
std::string resample_error(Harness& h, const MTL::Texture* t, const MTL::SamplerState* s,
                           report::CheckId expect) {
  auto out = h.buffer(16 * 16);
  const uint32_t size[2] = {4, 4};
  MTL::CommandBuffer* cb = h.run(
      "texture_resample",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setTexture(t, 0);
        e->setSamplerState(s, 0);
        e->setBuffer(out.get(), 0, 0);
        e->setBytes(size, sizeof size, 1);
      },
      MTL::Size(4, 4, 1), MTL::Size(4, 4, 1), true);
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusError);
  EXPECT_EQ(Harness::count(cb, expect), 1u) << Harness::reports(cb);
  for (const auto& r : cb->reports()) EXPECT_EQ(r.kernel, "texture_resample");
  return Harness::reports(cb);
}

TEST(TextureValidation, UnboundTextureAndSampler) {
  Harness h;
  auto t = make(h, MTL::PixelFormatRGBA8Unorm, 4, 4, kReadWrite);
  auto sd = NS::TransferPtr(MTL::SamplerDescriptor::alloc()->init());
  auto s = NS::TransferPtr(h.device()->newSamplerState(sd.get()));
  std::string text = resample_error(h, nullptr, s.get(), report::CheckId::api_unbound_buffer);
  EXPECT_NE(text.find("argument 'src' [[texture(0)]] (texture2d<float, access::sample>) is not "
                      "bound: call setTexture at index 0"),
            std::string::npos)
      << text;
  text = resample_error(h, t.get(), nullptr, report::CheckId::api_unbound_buffer);
  EXPECT_NE(
      text.find("argument 'smp' [[sampler(0)]] is not bound: call setSamplerState at index 0"),
      std::string::npos)
      << text;
}

TEST(TextureValidation, WrongTextureType) {
  Harness h;
  auto buffer = h.buffer(64);
  auto* d = MTL::TextureDescriptor::textureBufferDescriptor(
      MTL::PixelFormatR32Float, 16, MTL::ResourceStorageModeShared, kReadWrite);
  auto t = NS::TransferPtr(buffer->newTexture(d, 0, 64));
  auto sd = NS::TransferPtr(MTL::SamplerDescriptor::alloc()->init());
  auto s = NS::TransferPtr(h.device()->newSamplerState(sd.get()));
  const std::string text = resample_error(h, t.get(), s.get(), report::CheckId::api_wrong_kind);
  EXPECT_NE(text.find("argument 'src' [[texture(0)]] is a texture2d but the bound texture is "
                      "MTLTextureTypeTextureBuffer"),
            std::string::npos)
      << text;
}

TEST(TextureValidation, PixelFormatOfTheWrongComponentType) {
  Harness h;
  auto t = make(h, MTL::PixelFormatR32Uint, 4, 4, kReadWrite);
  auto sd = NS::TransferPtr(MTL::SamplerDescriptor::alloc()->init());
  auto s = NS::TransferPtr(h.device()->newSamplerState(sd.get()));
  const std::string text = resample_error(h, t.get(), s.get(), report::CheckId::api_wrong_kind);
  EXPECT_NE(text.find("argument 'src' [[texture(0)]] (texture2d<float, access::sample>) reads "
                      "float or normalized components but the bound texture's pixel format "
                      "R32Uint holds unsigned integer ones"),
            std::string::npos)
      << text;
}

TEST(TextureValidation, UsageWithoutShaderWrite) {
  Harness h;
  auto src = make(h, MTL::PixelFormatR32Float, 4, 4, kReadWrite);
  auto dst = make(h, MTL::PixelFormatR32Float, 4, 4, MTL::TextureUsageShaderRead);
  const float sb[2] = {1, 0};
  MTL::CommandBuffer* cb = h.run(
      "texture_mirror_affine",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setTexture(src.get(), 0);
        e->setTexture(dst.get(), 1);
        e->setBytes(sb, sizeof sb, 0);
      },
      MTL::Size(4, 4, 1), MTL::Size(4, 4, 1), true);
  EXPECT_EQ(Harness::count(cb, report::CheckId::api_wrong_kind), 1u) << Harness::reports(cb);
  const std::string text = Harness::reports(cb);
  EXPECT_NE(text.find("argument 'dst' [[texture(1)]] is used with access::write but the "
                      "texture's usage lacks MTLTextureUsageShaderWrite"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace metalsim::testing
