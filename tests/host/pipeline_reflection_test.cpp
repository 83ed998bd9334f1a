// MTL::ComputePipelineReflection (MTLArgument.hpp): a kernel compiled at run time is reflected
// as Metal reflects it: one binding per argument the host binds, in parameter order, with its
// type, index, access, element size and alignment, and isUsed() false for an argument that the
// pipeline's function constants remove. Built-ins are not bindings.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "metalsim/Metal.hpp"

namespace {

constexpr const char* kSource = R"(
#include <metal_stdlib>
using namespace metal;
constant bool use_bias [[function_constant(0)]];
struct Params { uint n; float scale; };
kernel void reflected(device const float* x [[buffer(0)]],
                      device half4* y [[buffer(1)]],
                      constant Params& p [[buffer(2)]],
                      device const float* bias [[buffer(3), function_constant(use_bias)]],
                      threadgroup float* scratch [[threadgroup(0)]],
                      texture2d<float, access::read> image [[texture(1)]],
                      uint gid [[thread_position_in_grid]]) {
  float v = x[gid] * p.scale + image.read(uint2(0, 0)).x;
  if (use_bias) v += bias[gid];
  scratch[0] = v;
  y[gid] = half4(v);
}
)";

class PipelineReflection : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/metalsim-reflection-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    device_ = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
    NS::Error* error = nullptr;
    library_ = NS::TransferPtr(device_->newLibrary(MTLSTR(kSource), nullptr, &error));
    ASSERT_TRUE(library_) << (error ? error->localizedDescription()->utf8String() : "");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The reflection of `reflected` with use_bias set to `bias`.
  MTL::ComputePipelineReflection* reflect(bool bias) {
    auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
    constants->setConstantValue(&bias, MTL::DataTypeBool, 0);
    NS::Error* error = nullptr;
    function_ =
        NS::TransferPtr(library_->newFunction(MTLSTR("reflected"), constants.get(), &error));
    EXPECT_TRUE(function_);
    MTL::ComputePipelineReflection* reflection = nullptr;
    pipeline_ = NS::TransferPtr(device_->newComputePipelineState(
        function_.get(), MTL::PipelineOptionBindingInfo, &reflection, &error));
    EXPECT_TRUE(pipeline_);
    return reflection;
  }

  std::string dir_;
  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::Library> library_;
  NS::SharedPtr<MTL::Function> function_;
  NS::SharedPtr<MTL::ComputePipelineState> pipeline_;
};

TEST_F(PipelineReflection, BindingsFollowTheSignature) {
  MTL::ComputePipelineReflection* reflection = reflect(true);
  ASSERT_NE(reflection, nullptr);
  NS::Array* bindings = reflection->bindings();
  ASSERT_EQ(bindings->count(), 6u);  // not the built-in

  auto* x = bindings->object<MTL::BufferBinding>(0);
  EXPECT_STREQ(x->name()->utf8String(), "x");
  EXPECT_EQ(x->type(), MTL::BindingTypeBuffer);
  EXPECT_EQ(x->index(), 0u);
  EXPECT_EQ(x->access(), MTL::BindingAccessReadOnly);
  EXPECT_EQ(x->bufferDataSize(), 4u);
  EXPECT_EQ(x->bufferAlignment(), 4u);
  EXPECT_EQ(x->bufferDataType(), MTL::DataTypeFloat);
  EXPECT_FALSE(x->isReference());
  EXPECT_TRUE(x->isUsed());

  auto* y = bindings->object<MTL::BufferBinding>(1);
  EXPECT_EQ(y->access(), MTL::BindingAccessReadWrite);
  EXPECT_EQ(y->bufferDataSize(), 8u);  // half4
  EXPECT_EQ(y->bufferDataType(), MTL::DataTypeHalf4);

  auto* p = bindings->object<MTL::BufferBinding>(2);
  EXPECT_STREQ(p->name()->utf8String(), "p");
  EXPECT_EQ(p->index(), 2u);
  EXPECT_EQ(p->access(), MTL::BindingAccessReadOnly);
  EXPECT_EQ(p->bufferDataSize(), 8u);  // struct Params { uint; float; }
  EXPECT_EQ(p->bufferDataType(), MTL::DataTypeNone);
  EXPECT_TRUE(p->isReference());

  auto* bias = bindings->object<MTL::BufferBinding>(3);
  EXPECT_STREQ(bias->name()->utf8String(), "bias");
  EXPECT_TRUE(bias->isUsed());

  auto* scratch = bindings->object<MTL::ThreadgroupBinding>(4);
  EXPECT_EQ(scratch->type(), MTL::BindingTypeThreadgroupMemory);
  EXPECT_EQ(scratch->index(), 0u);
  EXPECT_EQ(scratch->threadgroupMemoryDataSize(), 4u);

  auto* image = bindings->object<MTL::TextureBinding>(5);
  EXPECT_EQ(image->type(), MTL::BindingTypeTexture);
  EXPECT_EQ(image->index(), 1u);
  EXPECT_EQ(image->access(), MTL::BindingAccessReadOnly);
  EXPECT_EQ(image->textureType(), MTL::TextureType2D);
  EXPECT_NE(std::string(image->typeName()->utf8String()).find("texture2d"), std::string::npos);
}

// Metal removes an argument whose [[function_constant]] is false: it needs no binding, and
// reflection says so.
TEST_F(PipelineReflection, AnArgumentRemovedByAFunctionConstantIsUnused) {
  MTL::ComputePipelineReflection* reflection = reflect(false);
  ASSERT_NE(reflection, nullptr);
  auto* bias = reflection->bindings()->object<MTL::Binding>(3);
  EXPECT_STREQ(bias->name()->utf8String(), "bias");
  EXPECT_FALSE(bias->isUsed());
  EXPECT_TRUE(reflection->bindings()->object<MTL::Binding>(0)->isUsed());
}

TEST_F(PipelineReflection, NoReflectionAskedNoneMade) {
  bool bias = true;
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  constants->setConstantValue(&bias, MTL::DataTypeBool, 0);
  NS::Error* error = nullptr;
  auto function =
      NS::TransferPtr(library_->newFunction(MTLSTR("reflected"), constants.get(), &error));
  auto pipeline = NS::TransferPtr(
      device_->newComputePipelineState(function.get(), MTL::PipelineOptionNone, nullptr, &error));
  EXPECT_TRUE(pipeline);
  EXPECT_NE(pipeline->sourceLocation().find(":"), std::string::npos);
}

}  // namespace
