// tests/front/metal/*.metal compiled through metalsim_add_metal_library: the reflection table
// the host reads (KernelRegistry::find) and, with the host runtime, the kernels running.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "simt/abi/kernel.h"

namespace {

using metalsim::abi::ArgKind;
using metalsim::abi::Builtin;
using metalsim::abi::KernelInfo;
using metalsim::abi::KernelRegistry;

const KernelInfo& kernel(std::string_view name) {
  const KernelInfo* k = KernelRegistry::find(name);
  if (!k) throw std::runtime_error("kernel not registered: " + std::string(name));
  return *k;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

TEST(FrontMetalLibrary, RulesKernelReflection) {
  const KernelInfo& k = kernel("front_rules");
  EXPECT_TRUE(ends_with(k.source_file, "front_rules.metal")) << k.source_file;
  EXPECT_EQ(k.source_line, 22u);
  EXPECT_EQ(k.max_total_threads_per_threadgroup, 64u);
  EXPECT_EQ(k.static_threadgroup_bytes, 32u * 4 + 8 * 4);  // tile[32] + counts[2][4]
  ASSERT_NE(k.entry, nullptr);
  ASSERT_EQ(k.args.size(), 8u);

  EXPECT_STREQ(k.args[0].name, "in");
  EXPECT_EQ(k.args[0].kind, ArgKind::DeviceBuffer);
  EXPECT_EQ(k.args[0].index, 0u);
  EXPECT_STREQ(k.args[0].type, "device const float*");
  EXPECT_TRUE(k.args[0].is_const);
  EXPECT_EQ(k.args[0].element_size, 4u);

  EXPECT_EQ(k.args[1].kind, ArgKind::ConstantBuffer);
  EXPECT_TRUE(k.args[1].is_reference);
  EXPECT_EQ(k.args[1].element_size, 8u);  // Params
  EXPECT_EQ(k.args[1].element_align, 4u);

  EXPECT_EQ(k.args[2].kind, ArgKind::DeviceBuffer);
  EXPECT_FALSE(k.args[2].is_const);
  EXPECT_EQ(k.args[3].kind, ArgKind::Threadgroup);
  EXPECT_EQ(k.args[3].index, 0u);
  EXPECT_EQ(k.args[4].index, 3u);

  EXPECT_EQ(k.args[5].kind, ArgKind::Builtin);
  EXPECT_EQ(k.args[5].builtin, Builtin::thread_position_in_threadgroup);
  EXPECT_EQ(k.args[5].element_size, 16u);  // uint3 is 16 bytes in MSL
  EXPECT_EQ(k.args[6].builtin, Builtin::thread_index_in_simdgroup);
  EXPECT_EQ(k.args[6].element_size, 2u);
  EXPECT_EQ(k.args[7].builtin, Builtin::thread_position_in_grid);

  ASSERT_EQ(k.function_constants.size(), 2u);
  EXPECT_STREQ(k.function_constants[0].name, "has_bias");
  EXPECT_EQ(k.function_constants[0].index, 0u);
  EXPECT_STREQ(k.function_constants[1].type, "int");
  EXPECT_EQ(k.function_constants[1].size, 4u);
}

TEST(FrontMetalLibrary, AttributeKernelRegistered) {
  const KernelInfo& k = kernel("front_no_args_used");
  EXPECT_EQ(k.args.size(), 1u);
  EXPECT_EQ(k.static_threadgroup_bytes, 0u);
  EXPECT_EQ(k.max_total_threads_per_threadgroup, 0u);
}

TEST(FrontMetalLibrary, HostNameInstancesOfATemplate) {
  for (const char* name :
       {"scale_by_float", "scale_by_int_x3", "scale_by_half_x4", "scale_by_float_x4"}) {
    SCOPED_TRACE(name);
    const KernelInfo& k = kernel(name);
    EXPECT_STREQ(k.name, name);
    EXPECT_TRUE(ends_with(k.source_file, "front_templates.metal"));
    ASSERT_EQ(k.args.size(), 3u);
    EXPECT_STREQ(k.args[0].type, "device T*");
    EXPECT_EQ(k.args[1].kind, ArgKind::ConstantBuffer);
  }
  EXPECT_EQ(kernel("scale_by_float").args[0].element_size, 4u);
  EXPECT_EQ(kernel("scale_by_half_x4").args[0].element_size, 2u);
  EXPECT_EQ(KernelRegistry::find("scale_by"), nullptr);  // the template itself is not a kernel
}

}  // namespace

#if METALSIM_FRONT_TEST_HAS_HOST
#include <bit>
#include <cmath>
#include <random>

#include <metal_stdlib>

#include "front_host_run.h"

namespace {

using metalsim::front::testing::HostRun;

struct Params {
  uint32_t n;
  float scale;
};

TEST(FrontMetalRun, RulesKernelComputesWithFunctionConstants) {
  HostRun r;
  const uint32_t n = 64;
  std::vector<float> in(n);
  for (uint32_t i = 0; i < n; ++i) in[i] = float(i);
  auto bin = r.buffer(in);
  auto bout = r.buffer(std::vector<float>(n, -1.0f));
  auto bout2 = r.buffer(std::vector<float>(n, -1.0f));
  Params p{n, 2.0f};
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  bool has_bias = true;
  int bias = 100;
  constants->setConstantValue(&has_bias, MTL::DataTypeBool, 0);
  constants->setConstantValue(&bias, MTL::DataTypeInt, 1);
  MTL::CommandBuffer* cb = r.dispatch(
      "front_rules", constants.get(),
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bin.get(), 0, 0);
        e->setBytes(&p, sizeof(p), 1);
        e->setBuffer(bout.get(), 0, 2);
        e->setThreadgroupMemoryLength(32 * sizeof(float), 0);
        e->setBuffer(bout2.get(), 0, 3);
      },
      MTL::Size(2, 1, 1), MTL::Size(32, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  const float* out = static_cast<const float*>(bout->contents());
  const float* out2 = static_cast<const float*>(bout2->contents());
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t lane = i % 32;
    float w = (lane % 8) < 4 ? 1.0f : 2.0f;
    float v = float(i) * 2.0f + w + 0.5f + 100.0f;
    ASSERT_EQ(out[i], v) << i;
    float first = float(i - lane) * 2.0f + 1.0f + 0.5f + 100.0f;  // tile[0]: lane 0 of this group
    ASSERT_EQ(out2[i], first + 0.0f + 1.0f + 32.0f) << i;
  }
}

TEST(FrontMetalRun, TemplateInstanceRuns) {
  HostRun r;
  std::vector<float> x{1, 2, 3, 4};
  auto bx = r.buffer(x);
  float factor = 0.5f;
  MTL::CommandBuffer* cb = r.dispatch(
      "scale_by_float_x4", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBytes(&factor, sizeof(factor), 1);
      },
      MTL::Size(1, 1, 1), MTL::Size(4, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  const float* out = static_cast<const float*>(bx->contents());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], x[size_t(i)] * 0.5f * 4.0f);
}

// A call operator specialized inside its class (front_templates.metal): the int instance
// takes the specialization, the float one the template.
TEST(FrontMetalRun, InClassSpecializationIsCalled) {
  HostRun r;
  std::vector<float> xf{1.5f, -2.0f, 3.0f, 0.25f};
  std::vector<int> xi{1, -2, 3, 40};
  auto bf = r.buffer(xf);
  auto bi = NS::TransferPtr(
      r.device->newBuffer(xi.data(), xi.size() * sizeof(int), MTL::ResourceStorageModeShared));
  for (auto [name, buf] :
       {std::pair{"apply_op_float", bf.get()}, std::pair{"apply_op_int", bi.get()}}) {
    MTL::CommandBuffer* cb = r.dispatch(
        name, nullptr, [&](MTL::ComputeCommandEncoder* e) { e->setBuffer(buf, 0, 0); },
        MTL::Size(1, 1, 1), MTL::Size(4, 1, 1));
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << name;
  }
  const auto* of = static_cast<const float*>(bf->contents());
  const auto* oi = static_cast<const int*>(bi->contents());
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(of[i], xf[i] * 2.0f) << i;
    EXPECT_EQ(oi[i], -xi[i]) << i;
  }
}

// A program's own bfloat functions on Apple's intrinsics (front_library_extension.metal) run in
// place of the headers' ones: simd_sum sums in float and rounds once, against a scalar model.
uint16_t bf16(float f) { return metal::bfloat(f).bits; }
float from_bf16(uint16_t b) { return float(metal::bfloat::from_bits(b)); }

TEST(FrontMetalRun, ProgramBfloatFunctionsOnIntrinsics) {
  HostRun r;
  const uint32_t n = 64;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);
  std::vector<uint16_t> x(n);
  // Lane 0 of each simdgroup is large: adding about 1 to 256 in bfloat (spacing 2) loses it, so
  // rounding after every addition and rounding once give different sums.
  for (uint32_t i = 0; i < n; ++i) x[i] = bf16(i % 32 == 0 ? 256.0f : dist(rng));
  auto bytes = [&](const void* p, size_t size) {
    return NS::TransferPtr(r.device->newBuffer(p, size, MTL::ResourceStorageModeShared));
  };
  auto bx = bytes(x.data(), n * 2);
  std::vector<uint16_t> zeros(n, 0);
  auto bsum = bytes(zeros.data(), n * 2), bdown = bytes(zeros.data(), n * 2);
  auto bexp = bytes(zeros.data(), n * 2);
  auto bbits = r.buffer(std::vector<float>(n, 0.0f));
  MTL::CommandBuffer* cb = r.dispatch(
      "library_extension", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bsum.get(), 0, 1);
        e->setBuffer(bdown.get(), 0, 2);
        e->setBuffer(bexp.get(), 0, 3);
        e->setBuffer(bbits.get(), 0, 4);
      },
      MTL::Size(1, 1, 1), MTL::Size(n, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  const auto* sum = static_cast<const uint16_t*>(bsum->contents());
  const auto* down = static_cast<const uint16_t*>(bdown->contents());
  const auto* ex = static_cast<const uint16_t*>(bexp->contents());
  const auto* bits = static_cast<const float*>(bbits->contents());
  bool rounding_differs = false;
  for (uint32_t g = 0; g < n / 32; ++g) {
    float in_float = 0.0f;
    metal::bfloat in_bfloat(0.0f);
    uint32_t xor_bits = 0;
    for (uint32_t l = 0; l < 32; ++l) {
      in_float += from_bf16(x[g * 32 + l]);
      in_bfloat = in_bfloat + metal::bfloat::from_bits(x[g * 32 + l]);
      xor_bits ^= std::bit_cast<uint32_t>(float(g * 32 + l));
    }
    rounding_differs |= bf16(in_float) != in_bfloat.bits;
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t i = g * 32 + l;
      ASSERT_EQ(sum[i], bf16(in_float)) << i;
      ASSERT_EQ(down[i], l + 1 < 32 ? x[i + 1] : bf16(-1.0f)) << i;
      const float e1 = from_bf16(bf16(std::exp(from_bf16(x[i]))));
      ASSERT_EQ(ex[i], bf16(e1 + e1)) << i;
      ASSERT_EQ(std::bit_cast<uint32_t>(bits[i]), xor_bits) << i;
    }
  }
  EXPECT_TRUE(rounding_differs) << "inputs do not tell the program's simd_sum from the headers'";
}

// log1p(half) with a program's own float and bfloat log1p and no C library in scope
// (front_library_extension.metal): the float overload, against std::log(1 + x) in float.
TEST(FrontMetalRun, NoCMathInKernelScope) {
  HostRun r;
  const uint32_t n = 32;
  std::vector<_Float16> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = _Float16(0.125f * float(i) - 0.9f);
  auto bx = NS::TransferPtr(
      r.device->newBuffer(x.data(), n * sizeof(_Float16), MTL::ResourceStorageModeShared));
  auto by = r.buffer(std::vector<float>(n, 0.0f));
  MTL::CommandBuffer* cb = r.dispatch(
      "library_log1p", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(by.get(), 0, 1);
      },
      MTL::Size(1, 1, 1), MTL::Size(n, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  const auto* y = static_cast<const float*>(by->contents());
  // metal::log is within 2 ulp (detail/elementary.h), of the float sum as the kernel rounds it.
  for (uint32_t i = 0; i < n; ++i) {
    const double want = std::log(double(1.0f + float(x[i])));
    EXPECT_LE(std::fabs(double(y[i]) - want), 2.0 * std::ldexp(1.0, std::ilogb(want) - 23)) << i;
  }
}

}  // namespace
#endif
