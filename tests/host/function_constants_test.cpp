// A function that uses function constants, fetched without values (newFunction(name)), is
// unspecialised as Metal's newFunctionWithName: makes it: it reports its constants
// (functionConstantsDictionary: name, type, index, required) and makes no pipeline
// (newComputePipelineState returns null with an error naming the function, each constant and
// where it is declared). Specialised, with or without values, constants with a default and
// tested ones work. The same .metal file as a build-time library (linked in) and compiled at run
// time (Device::newLibrary(url)).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "metalsim/Metal.hpp"
#include "simt/engine/kernel_variants.h"

namespace {

constexpr const char* kFile = METALSIM_FUNCTION_CONSTANTS_METAL;

// The 1-based line of the .metal file that holds `text`.
int line_of(const std::string& text) {
  std::ifstream in(kFile);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return 0;
}

std::string text_of(const NS::Error* error) {
  return error != nullptr ? error->localizedDescription()->utf8String() : "(no error)";
}

enum class Built { linked, at_run_time };

class FunctionConstants : public ::testing::TestWithParam<Built> {
 protected:
  void SetUp() override {
    // The argument-reads pass finds which constants a kernel uses; kernels built without it
    // (no access-check plugin, -O0) report none.
    if (!metalsim::engine::fast_variants_built())
      GTEST_SKIP() << "kernels built without the access-check pass";
    char dir[] = "/tmp/metalsim-constants-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    device_ = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
    queue_ = NS::TransferPtr(device_->newCommandQueue());
    NS::Error* error = nullptr;
    library_ = NS::TransferPtr(
        GetParam() == Built::linked
            ? device_->newDefaultLibrary()
            : device_->newLibrary(NS::URL::fileURLWithPath(NS::String::string(kFile)), nullptr,
                                  &error));
    ASSERT_TRUE(library_) << text_of(error);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  NS::SharedPtr<MTL::Function> unspecialised(const char* name) {
    auto fn = NS::TransferPtr(library_->newFunction(NS::String::string(name)));
    EXPECT_TRUE(fn) << name;
    return fn;
  }

  // The constants functionConstantsDictionary reports, "name:type:index:required" in index
  // order.
  static std::string reported(const MTL::Function* fn) {
    std::vector<std::pair<NS::UInteger, std::string>> found;
    NS::Dictionary* d = fn->functionConstantsDictionary();
    for (const NS::Dictionary::Entry& e : d->entries()) {
      const auto* c = static_cast<const MTL::FunctionConstant*>(e.second.get());
      const std::string key = static_cast<const NS::String*>(e.first.get())->utf8String();
      EXPECT_EQ(key, c->name()->utf8String());
      EXPECT_EQ(d->object<MTL::FunctionConstant>(NS::String::string(key.c_str())), c);
      found.emplace_back(c->index(), key + ":" + std::to_string(c->type()) + ":" +
                                         std::to_string(c->index()) + ":" +
                                         (c->required() ? "required" : "optional"));
    }
    std::sort(found.begin(), found.end());
    std::string out;
    for (const auto& f : found) out += (out.empty() ? "" : " ") + f.second;
    return out;
  }

  // newComputePipelineState's error for `fn` (null pipeline), or "" where it made one.
  std::string pipeline_error(const MTL::Function* fn) {
    NS::Error* error = nullptr;
    auto pso = NS::TransferPtr(device_->newComputePipelineState(fn, &error));
    if (pso) return "";
    EXPECT_NE(error, nullptr);
    return text_of(error);
  }

  // `fn` over x (64 threads), its result.
  std::vector<float> run(const MTL::Function* fn, const std::vector<float>& x) {
    NS::Error* error = nullptr;
    auto pso = NS::TransferPtr(device_->newComputePipelineState(fn, &error));
    EXPECT_TRUE(pso) << text_of(error);
    if (!pso) return {};
    auto b = NS::TransferPtr(
        device_->newBuffer(x.data(), x.size() * sizeof(float), MTL::ResourceStorageModeShared));
    MTL::CommandBuffer* cb = queue_->commandBuffer();
    MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
    e->setComputePipelineState(pso.get());
    e->setBuffer(b.get(), 0, 0);
    e->dispatchThreads(MTL::Size(x.size(), 1, 1), MTL::Size(32, 1, 1));
    e->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
    const auto* p = static_cast<const float*>(b->contents());
    return {p, p + x.size()};
  }

  NS::SharedPtr<MTL::Function> specialised(const char* name, const int* scale, const bool* flag,
                                           const float* gain, NS::Error** error) {
    auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
    if (scale != nullptr) values->setConstantValue(scale, MTL::DataTypeInt, 20);
    if (flag != nullptr) values->setConstantValue(flag, MTL::DataTypeBool, 21);
    if (gain != nullptr) values->setConstantValue(gain, MTL::DataTypeFloat, 22);
    return NS::TransferPtr(library_->newFunction(NS::String::string(name), values.get(), error));
  }

  static std::vector<float> inputs() {
    std::mt19937 rng(2511);
    std::uniform_real_distribution<float> d(-4.0f, 4.0f);
    std::vector<float> x(64);
    for (float& v : x) v = d(rng);
    return x;
  }

  std::string dir_;
  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
  NS::SharedPtr<MTL::Library> library_;
};

const std::string kInt = std::to_string(MTL::DataTypeInt);
const std::string kBool = std::to_string(MTL::DataTypeBool);
const std::string kFloat = std::to_string(MTL::DataTypeFloat);

TEST_P(FunctionConstants, UnspecialisedReportsItsConstantsAndMakesNoPipeline) {
  auto required = unspecialised("constants_required");
  ASSERT_TRUE(required);
  EXPECT_FALSE(required->specialised());
  EXPECT_EQ(reported(required.get()), "fc_scale:" + kInt + ":20:required");
  const std::string message = pipeline_error(required.get());
  EXPECT_NE(message.find("function 'constants_required' uses function constants and is not "
                         "specialised"),
            std::string::npos)
      << message;
  // The kernel's line, and the constant's declaration with its name, type and index.
  EXPECT_NE(message.find("function_constants.metal:" +
                         std::to_string(line_of("kernel void constants_required"))),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("function_constants.metal:" +
                         std::to_string(line_of("fc_scale [[function_constant")) +
                         ": 'fc_scale' (int at index 20), required"),
            std::string::npos)
      << message;

  auto optional = unspecialised("constants_optional");
  ASSERT_TRUE(optional);
  EXPECT_EQ(reported(optional.get()),
            "fc_flag:" + kBool + ":21:optional fc_gain_value:" + kFloat + ":22:optional");
  const std::string optional_message = pipeline_error(optional.get());
  EXPECT_NE(optional_message.find("'fc_flag' (bool at index 21), optional"), std::string::npos)
      << optional_message;
  EXPECT_NE(optional_message.find("'fc_gain_value' (float at index 22), optional"),
            std::string::npos)
      << optional_message;

  // No constant used: the unspecialised function is the whole function.
  auto none = unspecialised("constants_none");
  ASSERT_TRUE(none);
  EXPECT_EQ(reported(none.get()), "");
  EXPECT_EQ(pipeline_error(none.get()), "");
  const std::vector<float> x = inputs();
  const std::vector<float> y = run(none.get(), x);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] + 1.0f) << i;
}

TEST_P(FunctionConstants, SpecialisedRunsWithDefaultsTestsAndValues) {
  const std::vector<float> x = inputs();
  NS::Error* error = nullptr;
  // No values: fc_gain takes its default (2), fc_flag is undefined.
  auto optional = specialised("constants_optional", nullptr, nullptr, nullptr, &error);
  ASSERT_TRUE(optional) << text_of(error);
  EXPECT_TRUE(optional->specialised());
  EXPECT_EQ(reported(optional.get()), "");  // a specialised function reports none, as Metal's
  std::vector<float> y = run(optional.get(), x);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] * 2.0f) << i;

  const bool flag = true;
  const float gain = 0.5f;
  optional = specialised("constants_optional", nullptr, &flag, &gain, &error);
  ASSERT_TRUE(optional) << text_of(error);
  y = run(optional.get(), x);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] * 0.5f + 1.0f) << i;

  const int scale = -3;
  auto required = specialised("constants_required", &scale, nullptr, nullptr, &error);
  ASSERT_TRUE(required) << text_of(error);
  y = run(required.get(), x);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] * -3.0f) << i;

  // Specialised without the value it requires: newFunction fails naming it and its line.
  error = nullptr;
  EXPECT_FALSE(specialised("constants_required", nullptr, &flag, nullptr, &error));
  const std::string message = text_of(error);
  EXPECT_NE(message.find("function constant 'fc_scale' (int at index 20) has no value (declared "
                         "at "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("function_constants.metal:" +
                         std::to_string(line_of("fc_scale [[function_constant")) + ")"),
            std::string::npos)
      << message;
}

// As MLX's Device::get_function_ and get_kernel_ make a specialised pipeline: values
// alloc()->init()->autorelease()d, a FunctionDescriptor (name, specialised name, values),
// newFunction(descriptor, &error), and a pipeline descriptor with linked functions (kept; nothing
// to link on metalsim).
TEST_P(FunctionConstants, SpecialisedByADescriptorAsMLXDoes) {
  const std::vector<float> x = inputs();
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  MTL::FunctionConstantValues* values = MTL::FunctionConstantValues::alloc()->init()->autorelease();
  const int scale = 5;
  values->setConstantValue(&scale, MTL::DataTypeInt, 20);
  MTL::FunctionDescriptor* descriptor = MTL::FunctionDescriptor::functionDescriptor();
  descriptor->setName(NS::String::string("constants_required", NS::ASCIIStringEncoding));
  descriptor->setSpecializedName(NS::String::string("required_5", NS::ASCIIStringEncoding));
  descriptor->setConstantValues(values);
  EXPECT_STREQ(descriptor->specializedName()->utf8String(), "required_5");
  EXPECT_EQ(descriptor->constantValues(), values);
  NS::Error* error = nullptr;
  auto fn = NS::TransferPtr(library_->newFunction(descriptor, &error));
  ASSERT_TRUE(fn) << text_of(error);
  EXPECT_TRUE(fn->specialised());
  EXPECT_STREQ(fn->name()->utf8String(), "constants_required");

  auto linked = NS::TransferPtr(MTL::LinkedFunctions::alloc()->init());
  const NS::Object* functions[] = {fn.get()};
  linked->setPrivateFunctions(NS::Array::array(functions, 1));
  EXPECT_EQ(linked->privateFunctions()->count(), 1u);
  MTL::ComputePipelineDescriptor* pd =
      MTL::ComputePipelineDescriptor::alloc()->init()->autorelease();
  pd->setComputeFunction(fn.get());
  pd->setLinkedFunctions(linked.get());
  EXPECT_EQ(pd->linkedFunctions(), linked.get());
  auto pso = NS::TransferPtr(
      device_->newComputePipelineState(pd, MTL::PipelineOptionNone, nullptr, &error));
  ASSERT_TRUE(pso) << text_of(error);
  pool->release();

  std::vector<float> y = run(fn.get(), x);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] * 5.0f) << i;

  // A descriptor without the value its function requires fails as newFunction(name, values).
  pool = NS::AutoreleasePool::alloc()->init();
  descriptor = MTL::FunctionDescriptor::functionDescriptor();
  descriptor->setName(NS::String::string("constants_required", NS::ASCIIStringEncoding));
  descriptor->setConstantValues(MTL::FunctionConstantValues::alloc()->init()->autorelease());
  error = nullptr;
  EXPECT_EQ(library_->newFunction(descriptor, &error), nullptr);
  EXPECT_NE(text_of(error).find("function constant 'fc_scale' (int at index 20) has no value"),
            std::string::npos)
      << text_of(error);
  // No descriptor, or no such kernel: an error, no function.
  error = nullptr;
  EXPECT_EQ(library_->newFunction(static_cast<const MTL::FunctionDescriptor*>(nullptr), &error),
            nullptr);
  EXPECT_NE(error, nullptr);
  descriptor->setName(NS::String::string("no_such_kernel", NS::ASCIIStringEncoding));
  error = nullptr;
  EXPECT_EQ(library_->newFunction(descriptor, &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorFunctionNotFound);
  pool->release();
}

INSTANTIATE_TEST_SUITE_P(BuildTimeAndRunTime, FunctionConstants,
                         ::testing::Values(Built::linked, Built::at_run_time),
                         [](const ::testing::TestParamInfo<Built>& p) {
                           return p.param == Built::linked ? std::string("Linked")
                                                           : std::string("AtRunTime");
                         });

}  // namespace
