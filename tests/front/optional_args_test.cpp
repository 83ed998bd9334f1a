// Kernel arguments under [[function_constant(c)]] (tests/front/metal/front_optional_args.metal):
// reflected with their condition, skipped by validation while it is false, required while true.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "simt/abi/kernel.h"

#ifdef METALSIM_FRONT_TEST_HAS_HOST
#include "front_host_run.h"
#endif

namespace {

TEST(OptionalArgs, ReflectedWithTheirCondition) {
  const auto* k = metalsim::abi::KernelRegistry::find("optional_args");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), 5u);
  EXPECT_EQ(k->args[0].active, nullptr);
  EXPECT_EQ(k->args[1].active, nullptr);
  EXPECT_NE(k->args[2].active, nullptr);
  EXPECT_NE(k->args[3].active, nullptr);
}

#ifdef METALSIM_FRONT_TEST_HAS_HOST
using metalsim::front::testing::HostRun;

constexpr uint32_t kN = 96;

std::vector<float> random_floats(uint32_t seed) {
  return metalsim::front::testing::random_floats(kN, seed);
}

// `kernel` over kN threads with function constant 3 (use_offsets) set to `use_offsets`; `bind`
// binds what the test binds, and nothing else is.
MTL::CommandBuffer* run(HostRun& r, const char* kernel, bool use_offsets,
                        const std::function<void(MTL::ComputeCommandEncoder*)>& bind) {
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  constants->setConstantValue(&use_offsets, MTL::DataTypeBool, 3);
  return r.dispatch(kernel, constants.get(), bind, MTL::Size(kN / 32, 1, 1), MTL::Size(32, 1, 1));
}

std::string error_text(MTL::CommandBuffer* cb) {
  return cb->error() != nullptr ? cb->error()->localizedDescription()->utf8String() : "";
}

TEST(OptionalArgs, AbsentWhileTheConstantIsFalse) {
  HostRun r;
  const auto in = random_floats(11);
  auto bin = r.buffer(in);
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  MTL::CommandBuffer* cb = run(r, "optional_args", false, [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(bout.get(), 0, 1);  // nothing at 2 and 3, as Metal's host code does
  });
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << error_text(cb);
  const float* out = static_cast<const float*>(bout->contents());
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], in[i] * 2.0f) << i;
}

TEST(OptionalArgs, PresentWhileTheConstantIsTrue) {
  HostRun r;
  const auto in = random_floats(12);
  const auto offsets = random_floats(13);
  const float scale = 0.75f;
  auto bin = r.buffer(in);
  auto boff = r.buffer(offsets);
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  MTL::CommandBuffer* cb = run(r, "optional_args", true, [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(bout.get(), 0, 1);
    e->setBuffer(boff.get(), 0, 2);
    e->setBytes(&scale, sizeof(scale), 3);
  });
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << error_text(cb);
  const float* out = static_cast<const float*>(bout->contents());
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], (in[i] * 2.0f + offsets[i]) * scale) << i;
}

TEST(OptionalArgs, RequiredWhileTheConstantIsTrue) {
  HostRun r;
  auto bin = r.buffer(random_floats(14));
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  MTL::CommandBuffer* cb = run(r, "optional_args", true, [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(bout.get(), 0, 1);
  });
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const std::string message = error_text(cb);
  EXPECT_NE(message.find("api.unbound_buffer"), std::string::npos) << message;
  EXPECT_NE(message.find("'offsets' [[buffer(2)]]"), std::string::npos) << message;
}

// optional_arg_misuse with the constant false: its absent arguments read as zeros, and a write to
// one is a bounds.device report naming it.
MTL::CommandBuffer* misuse(HostRun& r, const std::vector<float>& in, MTL::Buffer* out,
                           uint32_t write_debug) {
  auto bin = r.buffer(in);
  return run(r, "optional_arg_misuse", false, [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(out, 0, 1);
    e->setBytes(&write_debug, sizeof(write_debug), 5);
  });
}

TEST(OptionalArgs, AnAbsentArgumentReadsAsZeros) {
  HostRun r;
  const auto in = random_floats(15);
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  MTL::CommandBuffer* cb = misuse(r, in, bout.get(), 0);
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << error_text(cb);
  const float* out = static_cast<const float*>(bout->contents());
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], in[i]) << i;
}

TEST(OptionalArgs, AWriteToAnAbsentArgumentIsReported) {
  HostRun r;
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  MTL::CommandBuffer* cb = misuse(r, random_floats(16), bout.get(), 1);
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  const std::string message = error_text(cb);
  EXPECT_NE(message.find("bounds.device"), std::string::npos) << message;
  EXPECT_NE(message.find("front_optional_args.metal"), std::string::npos) << message;
  EXPECT_NE(message.find("buffer(4) 'debug' (absent"), std::string::npos) << message;
}
#endif  // METALSIM_FRONT_TEST_HAS_HOST

}  // namespace
