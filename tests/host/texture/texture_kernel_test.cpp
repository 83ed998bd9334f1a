// Texture kernels (textures.metal) through the host API, in both execution modes, against the
// specification's model (texture_model.h) on seeded random inputs. Outputs are poisoned before
// each run, and each run happens twice with two different poisons: a pixel no thread wrote
// cannot match the model both times, and a NaN never compares equal.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "simt/engine/dispatch.h"
#include "support/host_harness.h"
#include "texture_model.h"

namespace metalsim::testing {
namespace {

namespace tm = texture_model;
using metalsim::ExecutionMode;

// ------------------------------ helpers

class TextureKernels : public ::testing::TestWithParam<ExecutionMode> {
 protected:
  void SetUp() override {
    h_.options().workers = 2;
    h_.options().mode = GetParam();
  }

  // A width x height texture of `format` holding `bytes` (rows packed).
  NS::SharedPtr<MTL::Texture> texture(MTL::PixelFormat format, long width, long height,
                                      const std::vector<uint8_t>& bytes,
                                      MTL::TextureType type = MTL::TextureType2D) {
    auto* d = MTL::TextureDescriptor::texture2DDescriptor(format, NS::UInteger(width),
                                                          NS::UInteger(height), false);
    d->setTextureType(type);
    d->setUsage(MTL::TextureUsageShaderRead | MTL::TextureUsageShaderWrite);
    auto t = NS::TransferPtr(h_.device()->newTexture(d));
    const long row = width * tm::pixel_size(tm::format_of(format));
    if (t)
      t->replaceRegion(MTL::Region::Make2D(0, 0, NS::UInteger(width), NS::UInteger(height)), 0,
                       bytes.data(), NS::UInteger(row));
    return t;
  }

  static std::vector<uint8_t> contents(const MTL::Texture* t) {
    const long row = long(t->width()) * tm::pixel_size(tm::format_of(t->pixelFormat()));
    std::vector<uint8_t> out(size_t(row * long(t->height())));
    t->getBytes(out.data(), NS::UInteger(row), MTL::Region::Make2D(0, 0, t->width(), t->height()),
                0);
    return out;
  }

  // Random pixels: any bytes for normalized and integer formats, values in [-2, 2] for floats.
  std::vector<uint8_t> random_pixels(MTL::PixelFormat format, long count) {
    const tm::Format f = tm::format_of(format);
    std::vector<uint8_t> bytes(size_t(count * tm::pixel_size(f)));
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    std::uniform_int_distribution<int> byte(0, 255);
    for (long p = 0; p < count; ++p) {
      uint8_t* pixel = &bytes[size_t(p * tm::pixel_size(f))];
      if (f.stored == tm::Stored::f16 || f.stored == tm::Stored::f32) {
        tm::encode(f, {value(rng_), value(rng_), value(rng_), value(rng_)}, pixel);
      } else {
        for (int b = 0; b < tm::pixel_size(f); ++b) pixel[b] = uint8_t(byte(rng_));
      }
    }
    return bytes;
  }

  static tm::Image image(MTL::PixelFormat format, long w, long h, const std::vector<uint8_t>& b) {
    tm::Image img{w, h, tm::format_of(format), {}};
    for (long p = 0; p < w * h; ++p)
      img.pixels.push_back(tm::decode(img.format, &b[size_t(p * tm::pixel_size(img.format))]));
    return img;
  }

  // Runs and checks the dispatch ran in the mode asked for, without a report.
  void run(const char* kernel, const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
           MTL::Size grid, MTL::Size tg) {
    const uint64_t loops = engine::lane_loop_threadgroups_total();
    MTL::CommandBuffer* cb = h_.run(kernel, bind, grid, tg, true);
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
    if (GetParam() == ExecutionMode::loops) {
      EXPECT_GT(engine::lane_loop_threadgroups_total(), loops) << kernel << " ran on fibers";
    }
  }

  Harness h_;
  std::mt19937 rng_{20261126};
};

// |got - want| within `tol`, NaN never.
::testing::AssertionResult near(const tm::Value& got, const tm::Value& want, double tol,
                                const std::string& where) {
  for (int c = 0; c < 4; ++c)
    if (std::isnan(got[c]) || !(std::fabs(got[c] - want[c]) <= tol))
      return ::testing::AssertionFailure()
             << where << " component " << c << ": got " << got[c] << ", want " << want[c];
  return ::testing::AssertionSuccess();
}

// The step of one stored value near `x`: how far two adjacent encodings lie.
double step(const tm::Format& f, double x) {
  switch (f.stored) {
    case tm::Stored::unorm8: return 1.0 / 255;
    case tm::Stored::snorm8: return 1.0 / 127;
    case tm::Stored::unorm16: return 1.0 / 65535;
    case tm::Stored::snorm16: return 1.0 / 32767;
    case tm::Stored::f16: return std::max(std::fabs(x), 6.1e-5) * 0x1p-10;
    case tm::Stored::f32: return std::max(std::fabs(x), 1e-30) * 0x1p-23;
    default: return 0;
  }
}

// ------------------------------ a copy with a transform, across formats

struct FormatPair {
  MTL::PixelFormat src, dst;
};

TEST_P(TextureKernels, MirrorAffineAcrossFormats) {
  const FormatPair pairs[] = {
      {MTL::PixelFormatRGBA8Unorm, MTL::PixelFormatRGBA32Float},
      {MTL::PixelFormatBGRA8Unorm, MTL::PixelFormatRGBA8Unorm},
      {MTL::PixelFormatR8Unorm, MTL::PixelFormatR16Float},
      {MTL::PixelFormatRG8Snorm, MTL::PixelFormatRG16Float},
      {MTL::PixelFormatRGBA16Float, MTL::PixelFormatRGBA8Snorm},
      {MTL::PixelFormatR32Float, MTL::PixelFormatR8Unorm},
      {MTL::PixelFormatRG32Float, MTL::PixelFormatRG16Snorm},
      {MTL::PixelFormatR16Unorm, MTL::PixelFormatBGRA8Unorm},
  };
  const long w = 37, h = 23;
  const float scale_bias[2] = {0.75f, 0.125f};
  for (const FormatPair& p : pairs) {
    SCOPED_TRACE(std::to_string(p.src) + " -> " + std::to_string(p.dst));
    const std::vector<uint8_t> in = random_pixels(p.src, w * h);
    const tm::Image src = image(p.src, w, h, in);
    const tm::Format df = tm::format_of(p.dst);
    for (uint8_t poison : {uint8_t(0xFF), uint8_t(0x00)}) {
      auto a = texture(p.src, w, h, in);
      auto b =
          texture(p.dst, w, h, std::vector<uint8_t>(size_t(w * h * tm::pixel_size(df)), poison));
      ASSERT_TRUE(a && b);
      run(
          "texture_mirror_affine",
          [&](MTL::ComputeCommandEncoder* e) {
            e->setTexture(a.get(), 0);
            e->setTexture(b.get(), 1);
            e->setBytes(scale_bias, sizeof scale_bias, 0);
          },
          MTL::Size(NS::UInteger(w), NS::UInteger(h), 1), MTL::Size(8, 8, 1));
      const std::vector<uint8_t> out = contents(b.get());
      for (long y = 0; y < h; ++y)
        for (long x = 0; x < w; ++x) {
          tm::Value want = src.at(w - 1 - x, y);
          for (double& c : want) c = double(float(c) * scale_bias[0] + scale_bias[1]);
          // What the kernel wrote, read back; the want stored and read back the same way,
          // give or take one step where the value lies on a rounding boundary.
          std::vector<uint8_t> stored(size_t(tm::pixel_size(df)));
          tm::encode(df, want, stored.data());
          const tm::Value model = tm::decode(df, stored.data());
          const tm::Value got = tm::decode(df, &out[size_t((y * w + x) * tm::pixel_size(df))]);
          tm::Value tol_at{};
          double tol = 0;
          for (int c = 0; c < 4; ++c) tol = std::max(tol, step(df, model[c]) * 1.01);
          (void)tol_at;
          ASSERT_TRUE(
              near(got, model, tol, "pixel (" + std::to_string(x) + "," + std::to_string(y) + ")"));
        }
    }
  }
}

// ------------------------------ sampling

struct SamplerCase {
  const char* name;
  tm::Sampler model;
};

NS::SharedPtr<MTL::SamplerState> sampler_state(MTL::Device* device, const tm::Sampler& s) {
  auto d = NS::TransferPtr(MTL::SamplerDescriptor::alloc()->init());
  d->setNormalizedCoordinates(s.normalized);
  d->setMinFilter(s.linear ? MTL::SamplerMinMagFilterLinear : MTL::SamplerMinMagFilterNearest);
  d->setMagFilter(s.linear ? MTL::SamplerMinMagFilterLinear : MTL::SamplerMinMagFilterNearest);
  d->setSAddressMode(s.s);
  d->setTAddressMode(s.t);
  d->setBorderColor(s.border);
  return NS::TransferPtr(device->newSamplerState(d.get()));
}

const SamplerCase kSamplers[] = {
    {"linear clamp_to_edge", {true, true}},
    {"nearest clamp_to_edge", {true, false}},
    {"linear repeat", {true, true, MTL::SamplerAddressModeRepeat, MTL::SamplerAddressModeRepeat}},
    {"nearest repeat", {true, false, MTL::SamplerAddressModeRepeat, MTL::SamplerAddressModeRepeat}},
    {"linear mirrored_repeat",
     {true, true, MTL::SamplerAddressModeMirrorRepeat, MTL::SamplerAddressModeMirrorRepeat}},
    {"linear clamp_to_zero",
     {true, true, MTL::SamplerAddressModeClampToZero, MTL::SamplerAddressModeClampToZero}},
    {"linear clamp_to_border white",
     {true, true, MTL::SamplerAddressModeClampToBorderColor,
      MTL::SamplerAddressModeClampToBorderColor, MTL::SamplerBorderColorOpaqueWhite}},
    {"linear mirror_clamp_to_edge / repeat",
     {true, true, MTL::SamplerAddressModeMirrorClampToEdge, MTL::SamplerAddressModeRepeat}},
    {"pixel linear clamp_to_edge", {false, true}},
    {"pixel nearest clamp_to_zero",
     {false, false, MTL::SamplerAddressModeClampToZero, MTL::SamplerAddressModeClampToZero}},
    {"pixel linear clamp_to_border black",
     {false, true, MTL::SamplerAddressModeClampToBorderColor,
      MTL::SamplerAddressModeClampToBorderColor, MTL::SamplerBorderColorOpaqueBlack}},
};

constexpr uint32_t kPoisonBits = 0x7FC5A5A5u;  // a NaN no kernel computes

NS::SharedPtr<MTL::Buffer> poisoned(Harness& h, size_t floats) {
  auto b = h.buffer(floats * 4);
  auto* p = static_cast<uint32_t*>(b->contents());
  for (size_t i = 0; i < floats; ++i) p[i] = kPoisonBits;
  return b;
}

tm::Value value_at(const MTL::Buffer* b, size_t i) {
  const float* f = static_cast<const float*>(b->contents()) + 4 * i;
  return {f[0], f[1], f[2], f[3]};
}

// A bilinear (and nearest) resize of a 13x9 image to 29x17, every sampler.
TEST_P(TextureKernels, ResampleEverySampler) {
  const long w = 13, h = 9, ow = 29, oh = 17;
  for (MTL::PixelFormat format : {MTL::PixelFormatRGBA8Unorm, MTL::PixelFormatR16Float}) {
    const std::vector<uint8_t> in = random_pixels(format, w * h);
    const tm::Image img = image(format, w, h, in);
    auto src = texture(format, w, h, in);
    for (const SamplerCase& sc : kSamplers) {
      if (!sc.model.normalized) continue;  // the resize's coordinates are normalized
      SCOPED_TRACE(std::string(sc.name) + " format " + std::to_string(format));
      auto smp = sampler_state(h_.device(), sc.model);
      auto out = poisoned(h_, size_t(ow * oh * 4));
      const uint32_t size[2] = {uint32_t(ow), uint32_t(oh)};
      run(
          "texture_resample",
          [&](MTL::ComputeCommandEncoder* e) {
            e->setTexture(src.get(), 0);
            e->setSamplerState(smp.get(), 0);
            e->setBuffer(out.get(), 0, 0);
            e->setBytes(size, sizeof size, 1);
          },
          MTL::Size(NS::UInteger(ow), NS::UInteger(oh), 1), MTL::Size(8, 4, 1));
      for (long y = 0; y < oh; ++y)
        for (long x = 0; x < ow; ++x) {
          const float cx = (float(x) + 0.5f) / float(ow), cy = (float(y) + 0.5f) / float(oh);
          const tm::Value want = tm::sample(img, sc.model, cx, cy);
          ASSERT_TRUE(near(value_at(out.get(), size_t(y * ow + x)), want, 2e-6,
                           "output (" + std::to_string(x) + "," + std::to_string(y) + ")"));
        }
    }
  }
}

// Samples at random coordinates far outside the texture: every address mode, both coordinate
// spaces, a format without alpha (clamp_to_zero's alpha is then 1).
TEST_P(TextureKernels, SampleAtRandomCoordinates) {
  const long w = 11, h = 7;
  const size_t n = 700;
  for (MTL::PixelFormat format : {MTL::PixelFormatR8Unorm, MTL::PixelFormatRGBA32Float}) {
    const std::vector<uint8_t> in = random_pixels(format, w * h);
    const tm::Image img = image(format, w, h, in);
    auto src = texture(format, w, h, in);
    for (const SamplerCase& sc : kSamplers) {
      SCOPED_TRACE(std::string(sc.name) + " format " + std::to_string(format));
      const float lo = sc.model.normalized ? -1.7f : -19.0f,
                  hi = sc.model.normalized ? 2.6f : 30.0f;
      std::uniform_real_distribution<float> c(lo, hi);
      std::vector<float> coords(2 * n);
      for (float& v : coords) v = c(rng_);
      auto cb = h_.buffer(coords);
      auto out = poisoned(h_, 4 * n);
      auto smp = sampler_state(h_.device(), sc.model);
      run(
          "texture_sample_at",
          [&](MTL::ComputeCommandEncoder* e) {
            e->setTexture(src.get(), 0);
            e->setSamplerState(smp.get(), 0);
            e->setBuffer(cb.get(), 0, 0);
            e->setBuffer(out.get(), 0, 1);
          },
          MTL::Size(n, 1, 1), MTL::Size(64, 1, 1));
      for (size_t i = 0; i < n; ++i) {
        const tm::Value want = tm::sample(img, sc.model, coords[2 * i], coords[2 * i + 1]);
        ASSERT_TRUE(near(value_at(out.get(), i), want, 2e-5,
                         "sample " + std::to_string(i) + " at (" + std::to_string(coords[2 * i]) +
                             "," + std::to_string(coords[2 * i + 1]) + ")"));
      }
    }
  }
}

// `constexpr sampler s(filter::linear, address::mirrored_repeat, coord::normalized)` in the
// kernel, over a half texture: the filtered value is rounded to half once.
TEST_P(TextureKernels, ConstexprSamplerOnHalf) {
  const long w = 10, h = 6;
  const size_t n = 400;
  const std::vector<uint8_t> in = random_pixels(MTL::PixelFormatRGBA16Float, w * h);
  const tm::Image img = image(MTL::PixelFormatRGBA16Float, w, h, in);
  auto src = texture(MTL::PixelFormatRGBA16Float, w, h, in);
  std::uniform_real_distribution<float> c(-1.5f, 2.5f);
  std::vector<float> coords(2 * n);
  for (float& v : coords) v = c(rng_);
  auto cb = h_.buffer(coords);
  auto out = poisoned(h_, 4 * n);
  run(
      "texture_sample_constexpr",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setTexture(src.get(), 0);
        e->setBuffer(cb.get(), 0, 0);
        e->setBuffer(out.get(), 0, 1);
      },
      MTL::Size(n, 1, 1), MTL::Size(32, 1, 1));
  tm::Sampler s{true, true, MTL::SamplerAddressModeMirrorRepeat,
                MTL::SamplerAddressModeMirrorRepeat};
  for (size_t i = 0; i < n; ++i) {
    tm::Value want = tm::sample(img, s, coords[2 * i], coords[2 * i + 1]);
    for (double& v : want) v = double(_Float16(float(v)));
    const tm::Value got = value_at(out.get(), i);
    double tol = 0;
    for (double v : want) tol = std::max(tol, std::fabs(v) * 0x1p-10 + 1e-7);
    ASSERT_TRUE(near(got, want, tol, "sample " + std::to_string(i)));
  }
}

// ------------------------------ texture buffers, read_write, integer, half, 1D

TEST_P(TextureKernels, TextureBufferAxpyOverBuffers) {
  for (MTL::PixelFormat format : {MTL::PixelFormatR32Float, MTL::PixelFormatRGBA16Float}) {
    const tm::Format f = tm::format_of(format);
    const long n = 1000, offset = 64;
    const std::vector<uint8_t> xs = random_pixels(format, n), ys = random_pixels(format, n);
    auto xb = h_.buffer(size_t(offset + n * tm::pixel_size(f)));
    auto yb = h_.buffer(size_t(n * tm::pixel_size(f)));
    std::memcpy(static_cast<char*>(xb->contents()) + offset, xs.data(), xs.size());
    std::memcpy(yb->contents(), ys.data(), ys.size());
    auto* d = MTL::TextureDescriptor::textureBufferDescriptor(
        format, n, MTL::ResourceStorageModeShared,
        MTL::TextureUsageShaderRead | MTL::TextureUsageShaderWrite);
    auto xt = NS::TransferPtr(xb->newTexture(d, offset, NS::UInteger(n * tm::pixel_size(f))));
    auto yt = NS::TransferPtr(yb->newTexture(d, 0, NS::UInteger(n * tm::pixel_size(f))));
    ASSERT_TRUE(xt && yt);
    const float a = -1.25f;
    run(
        "texture_buffer_axpy",
        [&](MTL::ComputeCommandEncoder* e) {
          e->setTexture(xt.get(), 0);
          e->setTexture(yt.get(), 1);
          e->setBytes(&a, 4, 0);
        },
        MTL::Size(NS::UInteger(n), 1, 1), MTL::Size(64, 1, 1));
    for (long i = 0; i < n; ++i) {
      const tm::Value x = tm::decode(f, &xs[size_t(i * tm::pixel_size(f))]);
      tm::Value want = tm::decode(f, &ys[size_t(i * tm::pixel_size(f))]);
      for (int c = 0; c < 4; ++c) want[c] = double(a * float(x[c]) + float(want[c]));
      std::vector<uint8_t> stored(size_t(tm::pixel_size(f)));
      tm::encode(f, want, stored.data());
      const tm::Value model = tm::decode(f, stored.data());
      const uint8_t* got = static_cast<const uint8_t*>(yb->contents()) + i * tm::pixel_size(f);
      double tol = 0;
      for (double v : model) tol = std::max(tol, step(f, v) * 1.01);
      ASSERT_TRUE(near(tm::decode(f, got), model, tol, "element " + std::to_string(i)));
    }
  }
}

TEST_P(TextureKernels, ReadWriteInPlace) {
  const long w = 19, h = 11;
  for (MTL::PixelFormat format :
       {MTL::PixelFormatRGBA32Float, MTL::PixelFormatR16Float, MTL::PixelFormatRGBA8Snorm}) {
    const tm::Format f = tm::format_of(format);
    const std::vector<uint8_t> in = random_pixels(format, w * h);
    auto t = texture(format, w, h, in);
    run(
        "texture_square_in_place",
        [&](MTL::ComputeCommandEncoder* e) { e->setTexture(t.get(), 0); },
        MTL::Size(NS::UInteger(w), NS::UInteger(h), 1), MTL::Size(4, 4, 1));
    const std::vector<uint8_t> out = contents(t.get());
    for (long p = 0; p < w * h; ++p) {
      tm::Value want = tm::decode(f, &in[size_t(p * tm::pixel_size(f))]);
      for (double& v : want) v = double(float(v) * float(v) - 0.25f);
      std::vector<uint8_t> stored(size_t(tm::pixel_size(f)));
      tm::encode(f, want, stored.data());
      const tm::Value model = tm::decode(f, stored.data());
      double tol = 0;
      for (double v : model) tol = std::max(tol, step(f, v) * 1.01);
      ASSERT_TRUE(near(tm::decode(f, &out[size_t(p * tm::pixel_size(f))]), model, tol,
                       "pixel " + std::to_string(p)));
    }
  }
}

struct IntegerCase {
  const char* kernel;
  MTL::PixelFormat format;
  int k, c;
  int bits;  // the kernel's T: 32 or 16
  bool is_signed;
};

// dst = src * k + c in T (wrapping), written with the format's saturation (8.7.6).
double integer_model(const IntegerCase& ic, double v) {
  const int64_t r = int64_t(v) * ic.k + ic.c;
  if (ic.bits == 16) return ic.is_signed ? double(int16_t(r)) : double(uint16_t(r));
  return ic.is_signed ? double(int32_t(r)) : double(uint32_t(r));
}

TEST_P(TextureKernels, IntegerAndHalfTextures) {
  const IntegerCase cases[] = {
      {"texture_mad_uint", MTL::PixelFormatR8Uint, 3, 7, 32, false},
      {"texture_mad_uint", MTL::PixelFormatR32Uint, 3, 7, 32, false},
      {"texture_mad_uint", MTL::PixelFormatRGBA16Uint, 5, 1, 32, false},
      {"texture_mad_int", MTL::PixelFormatR8Sint, -3, 5, 32, true},
      {"texture_mad_int", MTL::PixelFormatRGBA32Sint, 1, -9, 32, true},
      {"texture_mad_ushort", MTL::PixelFormatR16Uint, 3, 2, 16, false},
      {"texture_mad_ushort", MTL::PixelFormatRGBA8Uint, 2, 1, 16, false},
      {"texture_mad_short", MTL::PixelFormatRG16Sint, -2, 3, 16, true},
  };
  const long w = 21, h = 5;
  for (const IntegerCase& ic : cases) {
    SCOPED_TRACE(std::string(ic.kernel) + " format " + std::to_string(ic.format));
    const tm::Format f = tm::format_of(ic.format);
    std::vector<uint8_t> in = random_pixels(ic.format, w * h);
    if (ic.format == MTL::PixelFormatRGBA32Sint)  // small values: no overflow in int
      for (size_t i = 3; i < in.size(); i += 4) in[i] = 0;
    const int kc[2] = {ic.k, ic.c};
    for (uint8_t poison : {uint8_t(0xFF), uint8_t(0x00)}) {
      auto a = texture(ic.format, w, h, in);
      auto b = texture(ic.format, w, h, std::vector<uint8_t>(in.size(), poison));
      run(
          ic.kernel,
          [&](MTL::ComputeCommandEncoder* e) {
            e->setTexture(a.get(), 0);
            e->setTexture(b.get(), 1);
            e->setBytes(kc, sizeof kc, 0);
          },
          MTL::Size(NS::UInteger(w), NS::UInteger(h), 1), MTL::Size(7, 5, 1));
      const std::vector<uint8_t> out = contents(b.get());
      for (long p = 0; p < w * h; ++p) {
        tm::Value want = tm::decode(f, &in[size_t(p * tm::pixel_size(f))]);
        for (double& v : want) v = integer_model(ic, v);
        std::vector<uint8_t> stored(size_t(tm::pixel_size(f)));
        tm::encode(f, want, stored.data());
        ASSERT_EQ(0, std::memcmp(stored.data(), &out[size_t(p * tm::pixel_size(f))], stored.size()))
            << "pixel " << p;
      }
    }
  }
  // half: each operation rounds to half.
  for (MTL::PixelFormat format : {MTL::PixelFormatRGBA16Float, MTL::PixelFormatRGBA8Unorm}) {
    const tm::Format f = tm::format_of(format);
    const std::vector<uint8_t> in = random_pixels(format, w * h);
    const int kc[2] = {3, -1};
    auto a = texture(format, w, h, in);
    auto b = texture(format, w, h, std::vector<uint8_t>(in.size(), 0xFF));
    run(
        "texture_mad_half",
        [&](MTL::ComputeCommandEncoder* e) {
          e->setTexture(a.get(), 0);
          e->setTexture(b.get(), 1);
          e->setBytes(kc, sizeof kc, 0);
        },
        MTL::Size(NS::UInteger(w), NS::UInteger(h), 1), MTL::Size(7, 5, 1));
    const std::vector<uint8_t> out = contents(b.get());
    for (long p = 0; p < w * h; ++p) {
      tm::Value want = tm::decode(f, &in[size_t(p * tm::pixel_size(f))]);
      for (double& v : want) {
        const _Float16 read = _Float16(float(v));
        v = double(_Float16(float(_Float16(float(read) * 3.0f)) - 1.0f));
      }
      std::vector<uint8_t> stored(size_t(tm::pixel_size(f)));
      tm::encode(f, want, stored.data());
      ASSERT_EQ(0, std::memcmp(stored.data(), &out[size_t(p * tm::pixel_size(f))], stored.size()))
          << "pixel " << p << " format " << format;
    }
  }
}

TEST_P(TextureKernels, Texture1DReverse) {
  const long n = 77;
  const std::vector<uint8_t> in = random_pixels(MTL::PixelFormatR32Float, n);
  auto a = texture(MTL::PixelFormatR32Float, n, 1, in, MTL::TextureType1D);
  auto b = texture(MTL::PixelFormatR32Float, n, 1, std::vector<uint8_t>(size_t(4 * n), 0xFF),
                   MTL::TextureType1D);
  ASSERT_TRUE(a && b);
  run(
      "texture1d_reverse",
      [&](MTL::ComputeCommandEncoder* e) {
        e->setTexture(a.get(), 0);
        e->setTexture(b.get(), 1);
      },
      MTL::Size(NS::UInteger(n), 1, 1), MTL::Size(32, 1, 1));
  const std::vector<uint8_t> out = contents(b.get());
  for (long i = 0; i < n; ++i)
    ASSERT_EQ(0, std::memcmp(&out[size_t(4 * i)], &in[size_t(4 * (n - 1 - i))], 4)) << i;
}

std::string mode_name(const ::testing::TestParamInfo<ExecutionMode>& p) {
  return p.param == ExecutionMode::fibers ? "fibers" : "loops";
}

INSTANTIATE_TEST_SUITE_P(Modes, TextureKernels,
                         ::testing::Values(ExecutionMode::fibers, ExecutionMode::loops), mode_name);

}  // namespace
}  // namespace metalsim::testing
