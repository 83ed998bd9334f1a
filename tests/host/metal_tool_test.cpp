// metalsim-metal (host/tools/metalsim-metal.in, docs/porting.md "Your metal-cpp program on
// Linux"): Apple's `metal` command lines as MLX's CMake runs them through `xcrun`. Two .metal
// files that share a header from an include root and a function constant are compiled (-c, with
// Apple's options, one with -D) and linked into one library, which Device::newLibrary(path)
// loads; each kernel runs, with and without the constant, against a reference computed here.
// -E -H lists the files' own headers, not metalsim's MSL headers.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "metalsim/Metal.hpp"

namespace {

const std::string kTool = METALSIM_METAL_TOOL;
const std::string kXcrun = METALSIM_XCRUN_TOOL;
const std::string kDir = METALSIM_METAL_TOOL_TEST_DIR;

std::string text_of(const NS::Error* error) {
  return error != nullptr ? error->localizedDescription()->utf8String() : "(no error)";
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class MetalTool : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/metalsim-metal-tool-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // Runs `command`, its stdout and stderr into dir_/name.out and .err; the exit status.
  int run(const std::string& name, const std::string& command) {
    const std::string line =
        command + " >" + dir_ + "/" + name + ".out 2>" + dir_ + "/" + name + ".err";
    const int status = std::system(line.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string dir_;
};

// tool_scale and tool_negate of `library`, each over its own copy of x, with tool_flag set to
// `flag` (or left undefined), dispatched as MLX does: one concurrent encoder, MLX's
// specialisation path (FunctionDescriptor). Their results, in that order.
std::vector<std::vector<float>> dispatch_both(MTL::Device* device, MTL::Library* library,
                                              const bool* flag, const std::vector<float>& x) {
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  MTL::FunctionConstantValues* values = MTL::FunctionConstantValues::alloc()->init()->autorelease();
  if (flag != nullptr) values->setConstantValue(flag, MTL::DataTypeBool, 3);
  auto queue = NS::TransferPtr(device->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBufferWithUnretainedReferences();
  MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder(MTL::DispatchTypeConcurrent);
  std::vector<NS::SharedPtr<MTL::Buffer>> buffers;
  for (const char* name : {"tool_scale", "tool_negate"}) {
    MTL::FunctionDescriptor* descriptor = MTL::FunctionDescriptor::functionDescriptor();
    descriptor->setName(NS::String::string(name));
    descriptor->setConstantValues(values);
    NS::Error* error = nullptr;
    auto fn = NS::TransferPtr(library->newFunction(descriptor, &error));
    EXPECT_TRUE(fn) << name << ": " << text_of(error);
    if (!fn) continue;
    auto pso = NS::TransferPtr(device->newComputePipelineState(fn.get(), &error));
    EXPECT_TRUE(pso) << name << ": " << text_of(error);
    if (!pso) continue;
    buffers.push_back(NS::TransferPtr(
        device->newBuffer(x.data(), x.size() * sizeof(float), MTL::ResourceStorageModeShared)));
    e->setComputePipelineState(pso.get());
    e->setBuffer(buffers.back().get(), 0, 0);
    e->dispatchThreads(MTL::Size(x.size(), 1, 1), MTL::Size(32, 1, 1));
  }
  e->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  pool->release();
  std::vector<std::vector<float>> results;
  for (const auto& b : buffers) {
    const auto* p = static_cast<const float*>(b->contents());
    results.emplace_back(p, p + x.size());
  }
  return results;
}

TEST_F(MetalTool, CompilesLinksAndTheLibraryRunsThroughNewLibraryByPath) {
  // As MLX's kernels/CMakeLists.txt runs it (through xcrun), one file with a -D.
  const std::string flags =
      " -x metal -Wall -Wextra -fno-fast-math -Wno-c++17-extensions "
      "-Wmetal-addr-spaces -I" +
      kDir + " -I" + kDir + "/include";
  ASSERT_EQ(run("scale", kXcrun + " -sdk macosx metal" + flags + " -DTOOL_FACTOR=3.0f -c " + kDir +
                             "/scale.metal -o " + dir_ + "/scale.air"),
            0)
      << read(dir_ + "/scale.err");
  ASSERT_EQ(
      run("negate", kTool + flags + " -c " + kDir + "/negate.metal -o " + dir_ + "/negate.air"), 0)
      << read(dir_ + "/negate.err");
  const std::string lib = dir_ + "/tool.metallib";
  ASSERT_EQ(run("link", kXcrun + " -sdk macosx metal " + dir_ + "/scale.air " + dir_ +
                            "/negate.air -o " + lib),
            0)
      << read(dir_ + "/link.err");

  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  NS::Error* error = nullptr;
  auto library = NS::TransferPtr(device->newLibrary(NS::String::string(lib.c_str()), &error));
  ASSERT_TRUE(library) << text_of(error);

  std::mt19937 rng(26);
  std::uniform_real_distribution<float> d(-8.0f, 8.0f);
  std::vector<float> x(96);
  for (float& v : x) v = d(rng);
  const bool on = true;
  for (const bool* flag : {static_cast<const bool*>(nullptr), &on}) {
    const double extra = flag != nullptr ? 1.0 : 0.0;
    const std::vector<std::vector<float>> got = dispatch_both(device.get(), library.get(), flag, x);
    ASSERT_EQ(got.size(), 2u);
    const std::vector<float>& scaled = got[0];
    const std::vector<float>& negated = got[1];
    for (size_t i = 0; i < x.size(); ++i) {
      // Two or three roundings of float arithmetic (or a fused multiply-add).
      const double a = double(x[i]) * 3.0 + 0.25 + extra;
      EXPECT_NEAR(scaled[i], a, 3 * 0x1p-24 * (std::fabs(3.0 * double(x[i])) + 1.25)) << i;
      const double b = -(double(x[i]) * 2.0 + 0.25) - extra;
      EXPECT_NEAR(negated[i], b, 3 * 0x1p-24 * (std::fabs(2.0 * double(x[i])) + 1.25)) << i;
    }
  }
}

// Function constants of sources linked into one library are the sources' own: scale.metal's
// bool tool_flag and shift.metal's int tool_shift share index 3 (MLX's rope.metal and conv.metal
// share index 1 in mlx.metallib), and each kernel takes a value of its own constant's size.
TEST_F(MetalTool, LinkedSourcesKeepTheirOwnFunctionConstants) {
  const std::string flags = " -x metal -I" + kDir + " -I" + kDir + "/include";
  ASSERT_EQ(run("scale", kTool + flags + " -DTOOL_FACTOR=3.0f -c " + kDir + "/scale.metal -o " +
                             dir_ + "/scale.air"),
            0)
      << read(dir_ + "/scale.err");
  ASSERT_EQ(run("shift", kTool + flags + " -c " + kDir + "/shift.metal -o " + dir_ + "/shift.air"),
            0)
      << read(dir_ + "/shift.err");
  const std::string lib = dir_ + "/both.metallib";
  ASSERT_EQ(run("link", kTool + " " + dir_ + "/scale.air " + dir_ + "/shift.air -o " + lib), 0)
      << read(dir_ + "/link.err");
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  NS::Error* error = nullptr;
  auto library = NS::TransferPtr(device->newLibrary(NS::String::string(lib.c_str()), &error));
  ASSERT_TRUE(library) << text_of(error);

  const int shift = -5;
  MTL::FunctionConstantValues* values = MTL::FunctionConstantValues::alloc()->init();
  values->setConstantValue(&shift, MTL::DataTypeInt, 3);
  auto fn =
      NS::TransferPtr(library->newFunction(NS::String::string("tool_add_shift"), values, &error));
  values->release();
  ASSERT_TRUE(fn) << text_of(error);
  auto pso = NS::TransferPtr(device->newComputePipelineState(fn.get(), &error));
  ASSERT_TRUE(pso) << text_of(error);
  std::vector<float> x(64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * float(i) - 7.0f;
  auto buffer = NS::TransferPtr(
      device->newBuffer(x.data(), x.size() * sizeof(float), MTL::ResourceStorageModeShared));
  auto queue = NS::TransferPtr(device->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* e = cb->computeCommandEncoder();
  e->setComputePipelineState(pso.get());
  e->setBuffer(buffer.get(), 0, 0);
  e->dispatchThreads(MTL::Size(x.size(), 1, 1), MTL::Size(32, 1, 1));
  e->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  const auto* got = static_cast<const float*>(buffer->contents());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], x[i] + float(shift)) << i;

  // A value of neither constant's size at that index is still refused, naming the constant.
  const int64_t wrong = 1;
  values = MTL::FunctionConstantValues::alloc()->init();
  values->setConstantValue(&wrong, MTL::DataTypeLong, 3);
  error = nullptr;
  auto refused =
      NS::TransferPtr(library->newFunction(NS::String::string("tool_add_shift"), values, &error));
  values->release();
  EXPECT_FALSE(refused);
  EXPECT_NE(text_of(error).find("the value given has 8"), std::string::npos) << text_of(error);
}

TEST_F(MetalTool, PreprocessingListsTheFilesOwnHeaders) {
  ASSERT_EQ(run("e", kTool + " -x metal -I" + kDir + "/include -E -P -CC -C -H " + kDir +
                         "/scale.metal -w"),
            0)
      << read(dir_ + "/e.err");
  const std::string root = std::filesystem::canonical(kDir + "/include").string();
  EXPECT_EQ(read(dir_ + "/e.err"),
            ". " + root + "/tool/common.h\n.. " + root + "/tool/offsets.h\n");
  EXPECT_NE(read(dir_ + "/e.out").find("tool_scaled"), std::string::npos);
}

TEST_F(MetalTool, ErrorsNameTheFile) {
  EXPECT_NE(run("missing", kTool + " -c " + dir_ + "/none.metal -o " + dir_ + "/none.air"), 0);
  EXPECT_NE(read(dir_ + "/missing.err").find("none.metal"), std::string::npos);
  // Linked without its include root: the include is not found, and the error says where.
  ASSERT_EQ(run("c", kTool + " -c " + kDir + "/negate.metal -o " + dir_ + "/negate.air"), 0);
  EXPECT_NE(run("link", kTool + " " + dir_ + "/negate.air -o " + dir_ + "/x.metallib"), 0);
  EXPECT_NE(read(dir_ + "/link.err").find("negate.metal:2: error: 'tool/common.h' file not found"),
            std::string::npos)
      << read(dir_ + "/link.err");
  EXPECT_NE(run("xcrun", kXcrun + " -sdk macosx clang --version"), 0);
}

}  // namespace
