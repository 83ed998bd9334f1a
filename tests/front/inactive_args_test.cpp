// Arguments the optimised kernel never reads (tests/front/metal/front_inactive_args.metal): the
// argument-reads pass finds them, reflection calls them unused, and a dispatch needs nothing bound
// there; an argument the kernel reads is still required.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
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

MTL::CommandBuffer* run_with(HostRun& r, const char* kernel, MTL::FunctionConstantValues* values,
                             const std::function<void(MTL::ComputeCommandEncoder*)>& bind) {
  return r.dispatch(kernel, values, bind, MTL::Size(kN / kGroup, 1, 1), MTL::Size(kGroup, 1, 1));
}

MTL::CommandBuffer* run(HostRun& r, const char* kernel,
                        const std::function<void(MTL::ComputeCommandEncoder*)>& bind) {
  return run_with(r, kernel, nullptr, bind);
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

struct Constants;
NS::SharedPtr<MTL::FunctionConstantValues> values_of(const Constants& c);

// isUsed() of each binding of `kernel`'s pipeline, "name:0/1" in parameter order; specialised
// with `constants` when given.
std::string used_bindings(HostRun& r, const char* kernel, const Constants* constants = nullptr) {
  NS::SharedPtr<MTL::FunctionConstantValues> values;
  if (constants != nullptr) values = values_of(*constants);
  NS::Error* fn_error = nullptr;
  auto fn = NS::TransferPtr(
      values ? r.library->newFunction(NS::String::string(kernel, NS::UTF8StringEncoding),
                                      values.get(), &fn_error)
             : r.library->newFunction(kernel));
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

// ------------------------------ under function constants, in a build-time library
// constant_inactive (tests/front/metal/front_constant_inactive.metal) uses `bias` only while
// ci_has_bias, `scale` only while ci_mode == 2 (through a derived constant), `shift` only while
// ci_mode == 3 and `limit` only while the optional ci_clamp_given is given and above 1.5.
struct Constants {
  bool has_bias = false;
  int mode = 0;
  std::optional<float> clamp;  // unset: ci_clamp_given not given
};

NS::SharedPtr<MTL::FunctionConstantValues> values_of(const Constants& c) {
  auto v = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  v->setConstantValue(&c.has_bias, MTL::DataTypeBool, 40);
  v->setConstantValue(&c.mode, MTL::DataTypeInt, 41);
  if (c.clamp) v->setConstantValue(&*c.clamp, MTL::DataTypeFloat, 42);
  return v;
}

// What the pipeline of `c` reads, as constant_inactive computes it.
struct Inputs {
  std::vector<float> in = random_floats(31), bias = random_floats(32), shift = random_floats(33);
  float scale = -0.75f, limit = 0.5f;
};

std::vector<float> reference(const Inputs& x, const Constants& c) {
  std::vector<float> out(kN);
  for (uint32_t i = 0; i < kN; ++i) {
    float v = x.in[i];
    if (c.has_bias) v += x.bias[i];
    if (c.mode == 2) v *= x.scale;
    if (c.mode == 3) v += x.shift[i];
    if (c.clamp.value_or(0.0f) > 1.5f) v = std::min(v, x.limit);
    out[i] = v;
  }
  return out;
}

// Dispatches constant_inactive with `c`, binding in and out and the arguments named in `bound`.
MTL::CommandBuffer* run_constant_inactive(HostRun& r, const Inputs& x, const Constants& c,
                                          const std::string& bound,
                                          NS::SharedPtr<MTL::Buffer>& out) {
  auto bin = r.buffer(x.in);
  auto bbias = r.buffer(x.bias);
  auto bshift = r.buffer(x.shift);
  out = r.buffer(std::vector<float>(kN, NAN));
  auto values = values_of(c);
  auto has = [&](const char* name) { return (" " + bound + " ").find(name) != std::string::npos; };
  return run_with(r, "constant_inactive", values.get(), [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bin.get(), 0, 0);
    e->setBuffer(out.get(), 0, 1);
    if (has(" bias ")) e->setBuffer(bbias.get(), 0, 2);
    if (has(" scale ")) e->setBytes(&x.scale, sizeof(float), 3);
    if (has(" shift ")) e->setBuffer(bshift.get(), 0, 4);
    if (has(" limit ")) e->setBytes(&x.limit, sizeof(float), 5);
  });
}

TEST(InactiveArgs, AnArgumentUsedOnlyUnderAFalseConstantNeedsNoBinding) {
  if (!reads_found())
    GTEST_SKIP() << "kernels built without the argument-reads pass or optimisation";
  HostRun r;
  const Inputs x;
  // Each set of values, binding only what it uses.
  const std::pair<Constants, std::string> cases[] = {
      {{false, 0, {}}, ""},          {{true, 0, {}}, "bias"}, {{false, 2, {}}, "scale"},
      {{true, 3, {}}, "bias shift"}, {{false, 0, 1.0f}, ""},  {{true, 2, 2.0f}, "bias scale limit"},
  };
  for (const auto& [c, bound] : cases) {
    SCOPED_TRACE("has_bias " + std::to_string(c.has_bias) + ", mode " + std::to_string(c.mode) +
                 ", clamp " + (c.clamp ? std::to_string(*c.clamp) : "unset"));
    NS::SharedPtr<MTL::Buffer> out;
    MTL::CommandBuffer* cb = run_constant_inactive(r, x, c, bound, out);
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << error_text(cb);
    const std::vector<float> want = reference(x, c);
    const float* got = static_cast<const float*>(out->contents());
    for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(got[i], want[i]) << i;
  }
}

TEST(InactiveArgs, AnArgumentUsedUnderATrueConstantIsRequired) {
  HostRun r;
  const Inputs x;
  // Each set of values, with one argument it uses left unbound.
  const std::tuple<Constants, std::string, const char*> cases[] = {
      {{true, 0, {}}, "", "'bias' [[buffer(2)]]"},
      {{false, 2, {}}, "", "'scale' [[buffer(3)]]"},
      {{false, 3, {}}, "", "'shift' [[buffer(4)]]"},
      {{true, 2, 2.0f}, "bias scale", "'limit' [[buffer(5)]]"},
  };
  for (const auto& [c, bound, missing] : cases) {
    SCOPED_TRACE(missing);
    NS::SharedPtr<MTL::Buffer> out;
    MTL::CommandBuffer* cb = run_constant_inactive(r, x, c, bound, out);
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
    const std::string message = error_text(cb);
    EXPECT_NE(message.find("api.unbound_buffer"), std::string::npos) << message;
    EXPECT_NE(message.find(missing), std::string::npos) << message;
  }
}

TEST(InactiveArgs, ReflectionFollowsTheConstants) {
  if (!reads_found())
    GTEST_SKIP() << "kernels built without the argument-reads pass or optimisation";
  HostRun r;
  auto used = [&](const Constants& c) { return used_bindings(r, "constant_inactive", &c); };
  EXPECT_EQ(used({false, 0, {}}), "in:1 out:1 bias:0 scale:0 shift:0 limit:0");
  EXPECT_EQ(used({true, 0, {}}), "in:1 out:1 bias:1 scale:0 shift:0 limit:0");
  EXPECT_EQ(used({false, 2, {}}), "in:1 out:1 bias:0 scale:1 shift:0 limit:0");
  EXPECT_EQ(used({true, 3, {}}), "in:1 out:1 bias:1 scale:0 shift:1 limit:0");
  EXPECT_EQ(used({false, 0, 1.0f}), "in:1 out:1 bias:0 scale:0 shift:0 limit:0");
  EXPECT_EQ(used({false, 1, 2.0f}), "in:1 out:1 bias:0 scale:0 shift:0 limit:1");
}
#endif  // METALSIM_FRONT_TEST_HAS_HOST

}  // namespace
