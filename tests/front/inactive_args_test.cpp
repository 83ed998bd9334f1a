// Arguments the optimised kernel never reads (tests/front/metal/front_inactive_args.metal): the
// argument-reads pass finds them, reflection calls them unused, and a dispatch needs nothing bound
// there; an argument the kernel reads is still required.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "reads_found.h"
#include "simt/abi/argument_reads.h"
#include "simt/abi/kernel.h"

#ifdef METALSIM_FRONT_TEST_HAS_HOST
#include "front_host_run.h"
#endif

namespace {

using metalsim::abi::KernelInfo;
using metalsim::abi::KernelRegistry;

// The names of `k`'s arguments that it reads, in parameter order (built-ins left out).
std::string read_arguments(const KernelInfo& k) {
  std::string names;
  for (const auto& a : k.args)
    if (a.kind != metalsim::abi::ArgKind::Builtin && metalsim::abi::argument_read(k, a))
      names += std::string(names.empty() ? "" : " ") + a.name;
  return names;
}

using metalsim::front::testing::reads_found;

TEST(InactiveArgs, TheUnreadArgumentsAreFound) {
  const KernelInfo* off = KernelRegistry::find("scale_bias_off");
  const KernelInfo* on = KernelRegistry::find("scale_bias_on");
  ASSERT_NE(off, nullptr);
  ASSERT_NE(on, nullptr);
  EXPECT_EQ(read_arguments(*on), "in out bias alpha beta partial");
  if (!reads_found())
    GTEST_SKIP() << "kernels built without the argument-reads pass or optimisation";
  ASSERT_TRUE(metalsim::abi::argument_reads_known(*off));
  ASSERT_TRUE(metalsim::abi::argument_reads_known(*on));
  EXPECT_EQ(read_arguments(*off), "in out alpha");
}

#ifdef METALSIM_FRONT_TEST_HAS_HOST
using metalsim::front::testing::HostRun;

constexpr uint32_t kN = 128;
constexpr uint32_t kGroup = 32;

std::vector<float> random_floats(uint32_t seed) {
  return metalsim::front::testing::random_floats(kN, seed);
}

std::string error_text(MTL::CommandBuffer* cb) {
  return cb->error() != nullptr ? cb->error()->localizedDescription()->utf8String() : "";
}

MTL::CommandBuffer* run(HostRun& r, const char* kernel,
                        const std::function<void(MTL::ComputeCommandEncoder*)>& bind) {
  return r.dispatch(kernel, nullptr, bind, MTL::Size(kN / kGroup, 1, 1), MTL::Size(kGroup, 1, 1));
}

TEST(InactiveArgs, AnUnreadArgumentNeedsNoBinding) {
  if (!reads_found())
    GTEST_SKIP() << "kernels built without the argument-reads pass or optimisation";
  HostRun r;
  const auto in = random_floats(21);
  const float alpha = 1.25f;
  auto bin = r.buffer(in);
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  // Nothing at buffer(2), buffer(4) or threadgroup(0), as MLX's host code binds gemv.
  MTL::CommandBuffer* cb = run(r, "scale_bias_off", [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(bout.get(), 0, 1);
    e->setBytes(&alpha, sizeof(alpha), 3);
  });
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << error_text(cb);
  const float* out = static_cast<const float*>(bout->contents());
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], in[i] * alpha) << i;
}

TEST(InactiveArgs, AReadArgumentIsUsedAndRequired) {
  HostRun r;
  const auto in = random_floats(22);
  const auto bias = random_floats(23);
  const float alpha = 0.5f, beta = -1.5f;
  auto bin = r.buffer(in);
  auto bbias = r.buffer(bias);
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  MTL::CommandBuffer* cb = run(r, "scale_bias_on", [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(bout.get(), 0, 1);
    e->setBuffer(bbias.get(), 0, 2);
    e->setBytes(&alpha, sizeof(alpha), 3);
    e->setBytes(&beta, sizeof(beta), 4);
    e->setThreadgroupMemoryLength(kGroup * sizeof(float), 0);
  });
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << error_text(cb);
  const float* out = static_cast<const float*>(bout->contents());
  for (uint32_t i = 0; i < kN; ++i) {
    const float partial = beta * bias[i];
    ASSERT_EQ(out[i], in[i] * alpha + partial) << i;
  }

  auto bout2 = r.buffer(std::vector<float>(kN, NAN));
  cb = run(r, "scale_bias_on", [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(bout2.get(), 0, 1);
    e->setBytes(&alpha, sizeof(alpha), 3);
    e->setBytes(&beta, sizeof(beta), 4);
    e->setThreadgroupMemoryLength(kGroup * sizeof(float), 0);
  });
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const std::string message = error_text(cb);
  EXPECT_NE(message.find("api.unbound_buffer"), std::string::npos) << message;
  EXPECT_NE(message.find("'bias' [[buffer(2)]]"), std::string::npos) << message;
}

// isUsed() of each binding of `kernel`'s pipeline, "name:0/1" in parameter order.
std::string used_bindings(HostRun& r, const char* kernel) {
  auto fn = NS::TransferPtr(r.library->newFunction(kernel));
  EXPECT_TRUE(fn) << kernel;
  MTL::ComputePipelineReflection* reflection = nullptr;
  NS::Error* error = nullptr;
  auto pso = NS::TransferPtr(r.device->newComputePipelineState(
      fn.get(), MTL::PipelineOptionBindingInfo, &reflection, &error));
  EXPECT_TRUE(pso && reflection) << kernel;
  std::string out;
  for (NS::UInteger i = 0; reflection != nullptr && i < reflection->bindings()->count(); ++i) {
    auto* b = reflection->bindings()->object<MTL::Binding>(i);
    out += std::string(out.empty() ? "" : " ") + b->name()->utf8String() + ":" +
           (b->isUsed() ? "1" : "0");
  }
  return out;
}

TEST(InactiveArgs, ReflectionSaysUnused) {
  HostRun r;
  EXPECT_EQ(used_bindings(r, "scale_bias_on"), "in:1 out:1 bias:1 alpha:1 beta:1 partial:1");
  if (!reads_found())
    GTEST_SKIP() << "kernels built without the argument-reads pass or optimisation";
  EXPECT_EQ(used_bindings(r, "scale_bias_off"), "in:1 out:1 bias:0 alpha:1 beta:0 partial:0");
}
#endif  // METALSIM_FRONT_TEST_HAS_HOST

}  // namespace
