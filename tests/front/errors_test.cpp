// What the front cannot handle is an error naming the .metal file and line.
#include "front_test_util.h"

namespace metalsim::front {
namespace {

using testing::translate;

TEST(FrontErrors, ParameterWithoutBinding) {
  auto r = translate("\n\nkernel void k(uint x) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:3: error: kernel parameter 'x' has no [[buffer(N)]], [[threadgroup(N)]], "
            "[[texture(N)]], [[sampler(N)]] or built-in attribute");
}

TEST(FrontErrors, ImplicitBufferIndexWithNonLiteralExplicitOne) {
  auto r = translate("kernel void k(device float* a, device float* b [[buffer(IDX)]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:1: error: kernel 'k' mixes buffers without [[buffer(N)]] and a non-literal "
            "buffer index 'IDX'");
}

// MLX's *_nax kernels: the include becomes one that stops the compile with a fatal error naming the
// framework, only where the preprocessor reaches it (ggml includes it under #ifdef).
TEST(FrontErrors, AppleFrameworkIncludeStopsTheCompile) {
  auto r = testing::translate(
      "#include <metal_stdlib>\n#ifdef HAS_TENSOR\n#include "
      "<MetalPerformancePrimitives/MetalPerformancePrimitives.h>\n#endif\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(testing::contains(
      r.code,
      "#ifdef HAS_TENSOR\n#include <metalsim does not provide Apple's MetalPerformancePrimitives "
      "framework (MetalPerformancePrimitives/MetalPerformancePrimitives.h): its kernels cannot "
      "run here>\n#endif"))
      << r.code;
}

TEST(FrontErrors, StageInParameterUnsupported) {
  auto r = translate("kernel void k(\n  float4 v [[stage_in]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:2: error: kernel parameter 'v': [[stage_in]] is not supported by metalsim");
}

TEST(FrontErrors, TextureByPointerOrInAnAddressSpace) {
  auto r = translate("kernel void k(\n  device texture2d<float>* t [[texture(0)]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:2: error: kernel parameter 't' bound to [[texture]] cannot have an address "
            "space");
  r = translate("kernel void k(\n  texture2d<float>& t [[texture(0)]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:2: error: kernel parameter 't' bound to [[texture]] must be a texture or "
            "sampler passed by value");
  r = translate("kernel void k(\n  sampler s [[sampler]]) {}\n");
  EXPECT_EQ(r.error, "t.metal:2: error: kernel parameter 's': [[sampler]] needs an index");
}

TEST(FrontErrors, BufferWithoutAddressSpace) {
  auto r = translate("kernel void k(float* x [[buffer(0)]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:1: error: kernel parameter 'x' bound to [[buffer]] needs the device or "
            "constant address space");
}

TEST(FrontErrors, BufferByValue) {
  auto r = translate("kernel void k(\n\n device float x [[buffer(0)]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:3: error: kernel parameter 'x' bound to [[buffer]] must be a pointer or a "
            "reference");
}

TEST(FrontErrors, HostNameInstanceWithoutTemplate) {
  auto r = translate("int a;\ntemplate [[host_name(\"x\")]] [[kernel]] void f;\n");
  EXPECT_EQ(r.error,
            "t.metal:2: error: [[host_name]] instantiation: expected the kernel template as "
            "name<args> or name(params)");
}

TEST(FrontErrors, KernelInsideMacro) {
  auto r = translate("int a;\n#define K kernel void k(device float* x [[buffer(0)]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:2: error: a kernel defined inside a macro is not supported; instantiate with "
            "[[host_name]] instead");
}

TEST(FrontErrors, UnterminatedString) {
  auto r = translate("int a;\n\nconst char* s = \"abc;\n");
  EXPECT_EQ(r.error, "t.metal:3: error: unterminated string literal");
}

TEST(FrontErrors, Unbalanced) {
  auto r = translate("void f() {\n  if (x {\n}\n");
  EXPECT_EQ(r.error, "t.metal:1: error: unbalanced '{'");
}

}  // namespace
}  // namespace metalsim::front
