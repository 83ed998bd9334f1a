// Function constants a kernel needs a value of (tests/front/metal/front_required_constants.metal):
// the argument-reads pass finds the constants whose value the optimised kernel reads with no
// is_function_constant_defined test; newFunction with constants fails naming the first one not
// given, as Metal's specialisation does; those with a default need none.
#include <gtest/gtest.h>

#include <cmath>
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

using metalsim::abi::KernelRegistry;

using metalsim::front::testing::reads_found;

TEST(RequiredConstants, OnlyTheUnguardedReadsAreRequired) {
  if (!reads_found()) GTEST_SKIP() << "kernels built without the argument-reads pass or -O";
  const auto* k = KernelRegistry::find("required_constants");
  const auto* none = KernelRegistry::find("required_none");
  ASSERT_NE(k, nullptr);
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(metalsim::abi::required_function_constants(*k), std::vector<uint32_t>{10});
  EXPECT_TRUE(metalsim::abi::required_function_constants(*none).empty());
}

#ifdef METALSIM_FRONT_TEST_HAS_HOST
using metalsim::front::testing::HostRun;

constexpr uint32_t kN = 64;

NS::SharedPtr<MTL::FunctionConstantValues> values() {
  return NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
}

TEST(RequiredConstants, AMissingValueFailsNewFunctionNamingIt) {
  if (!reads_found()) GTEST_SKIP() << "kernels built without the argument-reads pass or -O";
  HostRun r;
  auto constants = values();
  const bool negate = true;
  constants->setConstantValue(&negate, MTL::DataTypeBool, 11);
  NS::Error* error = nullptr;
  MTL::Function* fn = r.library->newFunction(MTLSTR("required_constants"), constants.get(), &error);
  EXPECT_EQ(fn, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorCompileFailure);
  const std::string message = error->localizedDescription()->utf8String();
  EXPECT_NE(message.find("function constant 'rc_stride' (int at index 10) has no value"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("kernel 'required_constants'"), std::string::npos) << message;
  EXPECT_NE(message.find("front_required_constants.metal"), std::string::npos) << message;

  // A kernel of the same file that reads none needs none.
  auto other =
      NS::TransferPtr(r.library->newFunction(MTLSTR("required_none"), values().get(), &error));
  EXPECT_NE(other.get(), nullptr);
}

// out[i] = (negate ? -1 : 1) * (in[i * stride] + bias), bias 0.5 unless given.
void run_and_compare(HostRun& r, int stride, const bool* negate, const float* bias) {
  std::mt19937 rng(41 + uint32_t(stride));
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> in(size_t(kN) * size_t(stride));
  for (float& x : in) x = d(rng);
  auto constants = values();
  constants->setConstantValue(&stride, MTL::DataTypeInt, 10);
  if (negate != nullptr) constants->setConstantValue(negate, MTL::DataTypeBool, 11);
  if (bias != nullptr) constants->setConstantValue(bias, MTL::DataTypeFloat, 12);
  auto bin = r.buffer(in);
  auto bout = r.buffer(std::vector<float>(kN, NAN));
  MTL::CommandBuffer* cb = r.dispatch(
      "required_constants", constants.get(),
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bin.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
      },
      MTL::Size(kN / 32, 1, 1), MTL::Size(32, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  const float* out = static_cast<const float*>(bout->contents());
  for (uint32_t i = 0; i < kN; ++i) {
    float want = in[size_t(i) * size_t(stride)] + (bias != nullptr ? *bias : 0.5f);
    if (negate != nullptr && *negate) want = -want;
    ASSERT_EQ(out[i], want) << i;
  }
}

TEST(RequiredConstants, DefaultsApplyWhereNoValueIsGiven) {
  HostRun r;
  run_and_compare(r, 2, nullptr, nullptr);
}

TEST(RequiredConstants, GivenValuesAreUsed) {
  HostRun r;
  const bool negate = true;
  const float bias = -1.25f;
  run_and_compare(r, 3, &negate, &bias);
}
#endif  // METALSIM_FRONT_TEST_HAS_HOST

}  // namespace
