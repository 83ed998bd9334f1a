// Runtime compilation (MTL::Device::newLibrary with source or a .metal file, issue 13): kernels
// compiled from a string dispatch and match scalar references on seeded random inputs; a second
// compile comes from the cache; errors read file:line; macros and the math mode reach the
// compiler; two libraries may use one kernel name.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host/src/kernel_cache.h"
#include "host/src/runtime_compiler.h"
#include "metalsim/Foundation/NSNumber.hpp"
#include "metalsim/Metal.hpp"
#include "simt/checks/access_shadow.h"
#include "simt/engine/dispatch.h"
#include "simt/engine/kernel_variants.h"
#include "simt/report/check_id.h"

namespace {
namespace fs = std::filesystem;

// Every test compiles into a cache of its own (XDG_CACHE_HOME), removed at the end.
class RuntimeLibrary : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/metalsim-runtime-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    device_ = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  NS::SharedPtr<MTL::Library> compile(const std::string& source,
                                      const MTL::CompileOptions* options = nullptr) {
    NS::Error* error = nullptr;
    auto library = NS::TransferPtr(device_->newLibrary(MTLSTR(source.c_str()), options, &error));
    EXPECT_NE(library.get(), nullptr) << (error ? error->localizedDescription()->utf8String() : "");
    return library;
  }
  // `kernel` of `library` over `threads` threads (threadgroups of 32), `v` at buffer(0); the
  // committed command buffer (owned by the fixture's queue).
  MTL::CommandBuffer* dispatch_one_buffer(MTL::Library* library, const char* kernel, MTL::Buffer* v,
                                          NS::UInteger threads) {
    auto fn = NS::TransferPtr(library->newFunction(MTLSTR(kernel)));
    NS::Error* error = nullptr;
    auto pso = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
    if (!queue_) queue_ = NS::TransferPtr(device_->newCommandQueue());
    MTL::CommandBuffer* cb = queue_->commandBuffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    enc->setBuffer(v, 0, 0);
    enc->dispatchThreads(MTL::Size(threads, 1, 1), MTL::Size(32, 1, 1));
    enc->endEncoding();
    cb->commit();
    return cb;
  }
  std::string compile_error(const std::string& source,
                            const MTL::CompileOptions* options = nullptr) {
    NS::Error* error = nullptr;
    MTL::Library* library = device_->newLibrary(MTLSTR(source.c_str()), options, &error);
    EXPECT_EQ(library, nullptr);
    if (library != nullptr) library->release();
    if (error == nullptr) return "(no error)";
    EXPECT_EQ(error->code(), MTL::LibraryErrorCompileFailure);
    return error->localizedDescription()->utf8String();
  }

  // Runs `kernel` of `library` over `n` threads in threadgroups of `tg`, buffers bound in order,
  // under `options` (null: the device's); the command buffer must complete with no report.
  void dispatch(MTL::Library* library, const char* kernel,
                const std::vector<NS::SharedPtr<MTL::Buffer>>& buffers, size_t n, size_t tg,
                const metalsim::ExecutionOptions* options = nullptr) {
    NS::Error* error = nullptr;
    auto fn = NS::TransferPtr(library->newFunction(MTLSTR(kernel)));
    ASSERT_NE(fn.get(), nullptr) << "no kernel " << kernel;
    auto pso = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
    ASSERT_NE(pso.get(), nullptr);
    auto queue = NS::TransferPtr(device_->newCommandQueue());
    MTL::CommandBuffer* cb = queue->commandBuffer();
    if (options != nullptr) cb->setExecutionOptions(*options);
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    for (size_t i = 0; i < buffers.size(); ++i) enc->setBuffer(buffers[i].get(), 0, i);
    enc->dispatchThreads(MTL::Size(n, 1, 1), MTL::Size(tg, 1, 1));
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    std::string reports;
    for (const auto& r : cb->reports()) reports += r.format();
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << reports;
    EXPECT_TRUE(cb->reports().empty()) << reports;
  }

  template <class T>
  NS::SharedPtr<MTL::Buffer> buffer(const std::vector<T>& data) {
    return NS::TransferPtr(
        device_->newBuffer(data.data(), data.size() * sizeof(T), MTL::ResourceStorageModeShared));
  }
  template <class T>
  static std::vector<T> contents(MTL::Buffer* b) {
    const T* p = static_cast<const T*>(b->contents());
    return std::vector<T>(p, p + b->length() / sizeof(T));
  }
  static std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
  }
  static std::vector<float> poison(size_t n) {
    return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
  }

  std::string dir_;
  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::CommandQueue> queue_;  // dispatch_one_buffer's, made on first use
};

MTL::CompileOptions* safe_math() {
  MTL::CompileOptions* o = MTL::CompileOptions::alloc()->init();
  o->setMathMode(MTL::MathModeSafe);
  return o;
}

// One threadgroup's sum through threadgroup memory and barriers, then y = a * x + that sum:
// engine calls (barriers, threadgroup memory) from a library loaded at run time.
constexpr const char* kAxpyPlusGroupSum = R"(#include <metal_stdlib>
using namespace metal;

kernel void axpy_group_sum(device const float* x [[buffer(0)]],
                           device float* y [[buffer(1)]],
                           uint gid [[thread_position_in_grid]],
                           uint lid [[thread_position_in_threadgroup]],
                           uint tg_size [[threads_per_threadgroup]]) {
  threadgroup float partial[64];
  partial[lid] = x[gid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint stride = tg_size / 2; stride > 0; stride /= 2) {
    if (lid < stride) partial[lid] += partial[lid + stride];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  y[gid] = 2.5f * x[gid] + partial[0];
}
)";

// The scalar model: the same tree of additions in the same order.
std::vector<float> axpy_group_sum_ref(const std::vector<float>& x, size_t tg) {
  std::vector<float> y(x.size());
  for (size_t base = 0; base < x.size(); base += tg) {
    std::vector<float> partial(x.begin() + base, x.begin() + base + tg);
    for (size_t stride = tg / 2; stride > 0; stride /= 2)
      for (size_t i = 0; i < stride; ++i) partial[i] += partial[i + stride];
    for (size_t i = 0; i < tg; ++i) y[base + i] = 2.5f * x[base + i] + partial[0];
  }
  return y;
}

TEST_F(RuntimeLibrary, CompilesAKernelFromAStringAndDispatchesIt) {
  auto options = NS::TransferPtr(safe_math());
  auto library = compile(kAxpyPlusGroupSum, options.get());
  ASSERT_NE(library.get(), nullptr);
  EXPECT_EQ(library->functionNames(), std::vector<std::string>{"axpy_group_sum"});
  const size_t n = 64 * 37, tg = 64;
  const std::vector<float> x = random_floats(n, 13);
  auto xb = buffer(x);
  auto yb = buffer(poison(n));
  dispatch(library.get(), "axpy_group_sum", {xb, yb}, n, tg);
  const std::vector<float> expected = axpy_group_sum_ref(x, tg);
  const std::vector<float> y = contents<float>(yb.get());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], expected[i]) << "y[" << i << "]";  // NaN fails
}

// A runtime compile makes both variants too (issue 23 item 1): with mem on the checked one runs,
// with mem, race and init off the fast one, in either mode, and both match the scalar model.
TEST_F(RuntimeLibrary, RuntimeKernelsHaveAFastVariant) {
  using metalsim::KernelVariant;
  if (!metalsim::engine::fast_variants_built())
    GTEST_SKIP() << "kernels built without the access-check pass";
  auto library = compile(kAxpyPlusGroupSum);
  ASSERT_NE(library.get(), nullptr);
  const size_t n = 64 * 5, tg = 64;
  const std::vector<float> x = random_floats(n, 29);
  const std::vector<float> expected = axpy_group_sum_ref(x, tg);
  for (auto mode : {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops})
    for (const bool mem : {true, false}) {
      metalsim::ExecutionOptions options;
      options.mode = mode;
      options.checks = metalsim::CheckSet::none();
      options.checks.sync = true;
      options.checks.mem = mem;
      const KernelVariant variant = mem ? KernelVariant::checked : KernelVariant::fast;
      const uint64_t before = metalsim::engine::variant_dispatches_total(variant);
      auto xb = buffer(x);
      auto yb = buffer(poison(n));
      dispatch(library.get(), "axpy_group_sum", {xb, yb}, n, tg, &options);
      EXPECT_EQ(metalsim::engine::variant_dispatches_total(variant), before + 1)
          << metalsim::kernel_variant_name(variant) << " did not run";
      EXPECT_EQ(contents<float>(yb.get()), expected);
    }
}

// An argument the compiled function never reads is inactive in a run-time compiled library too
// (docs/msl-coverage.md): reflection says unused, and the dispatch needs nothing bound there.
TEST_F(RuntimeLibrary, AnUnreadArgumentIsInactive) {
  if (!metalsim::engine::fast_variants_built())
    GTEST_SKIP() << "kernels built without the access-check pass (which finds the reads)";
  auto library = compile(R"(#include <metal_stdlib>
using namespace metal;
template <bool kShift>
kernel void shift_maybe(device float* v [[buffer(0)]], device const float* by [[buffer(1)]],
                        uint i [[thread_position_in_grid]]) {
  if (kShift) v[i] += by[i];
  else v[i] *= 2.0f;
}
template [[host_name("shift_off")]] [[kernel]] decltype(shift_maybe<false>) shift_maybe<false>;
)");
  ASSERT_NE(library.get(), nullptr);
  auto fn = NS::TransferPtr(library->newFunction("shift_off"));
  ASSERT_NE(fn.get(), nullptr);
  MTL::ComputePipelineReflection* reflection = nullptr;
  NS::Error* error = nullptr;
  auto pso = NS::TransferPtr(device_->newComputePipelineState(
      fn.get(), MTL::PipelineOptionBindingInfo, &reflection, &error));
  ASSERT_NE(pso.get(), nullptr);
  ASSERT_NE(reflection, nullptr);
  EXPECT_TRUE(reflection->bindings()->object<MTL::Binding>(0)->isUsed());
  EXPECT_FALSE(reflection->bindings()->object<MTL::Binding>(1)->isUsed());
  const size_t n = 96;
  const std::vector<float> x = random_floats(n, 31);
  auto xb = buffer(x);
  MTL::CommandBuffer* cb = dispatch_one_buffer(library.get(), "shift_off", xb.get(), n);
  cb->waitUntilCompleted();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  const std::vector<float> y = contents<float>(xb.get());
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 2.0f) << i;
}

// newFunction with constants specialises a function of a library compiled at run time (issue 25
// item 2): the values are compiled in, so an argument that only a branch folded away used is
// inactive; each set of values is a compile of its own; a constant read with no value and no
// default fails newFunction naming it.
TEST_F(RuntimeLibrary, NewFunctionWithConstantsSpecialises) {
  if (!metalsim::engine::fast_variants_built())
    GTEST_SKIP() << "kernels built without the access-check pass (which finds the reads)";
  auto library = compile(R"(#include <metal_stdlib>
using namespace metal;
constant bool has_bias [[function_constant(0)]];
constant float gain_value [[function_constant(1)]];
constant float gain = is_function_constant_defined(gain_value) ? gain_value : 3.0f;
kernel void gain_bias(device float* v [[buffer(0)]], device const float* bias [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  float x = v[i] * gain;
  if (has_bias) x += bias[i];
  v[i] = x;
}
)");
  ASSERT_NE(library.get(), nullptr);
  const size_t n = 64;
  const std::vector<float> x = random_floats(n, 37);
  const std::vector<float> bias = random_floats(n, 38);
  // (gain given or not, has_bias) -> a specialised pipeline run on x, bias bound when used.
  auto run = [&](const float* given_gain, bool with_bias, std::string* unused) {
    auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
    constants->setConstantValue(&with_bias, MTL::DataTypeBool, 0);
    if (given_gain != nullptr) constants->setConstantValue(given_gain, MTL::DataTypeFloat, 1);
    NS::Error* error = nullptr;
    auto fn = NS::TransferPtr(library->newFunction(MTLSTR("gain_bias"), constants.get(), &error));
    EXPECT_NE(fn.get(), nullptr) << (error ? error->localizedDescription()->utf8String() : "");
    if (!fn) return std::vector<float>{};
    MTL::ComputePipelineReflection* reflection = nullptr;
    auto pso = NS::TransferPtr(device_->newComputePipelineState(
        fn.get(), MTL::PipelineOptionBindingInfo, &reflection, &error));
    EXPECT_NE(pso.get(), nullptr);
    *unused = "";
    for (NS::UInteger i = 0; i < reflection->bindings()->count(); ++i)
      if (!reflection->bindings()->object<MTL::Binding>(i)->isUsed())
        *unused += reflection->bindings()->object<MTL::Binding>(i)->name()->utf8String();
    auto vb = buffer(x);
    auto bb = buffer(bias);
    if (!queue_) queue_ = NS::TransferPtr(device_->newCommandQueue());
    MTL::CommandBuffer* cb = queue_->commandBuffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    enc->setBuffer(vb.get(), 0, 0);
    if (with_bias) enc->setBuffer(bb.get(), 0, 1);  // as host code binds it: only when used
    enc->dispatchThreads(MTL::Size(n, 1, 1), MTL::Size(32, 1, 1));
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
    return contents<float>(vb.get());
  };
  std::string unused;
  const float half = 0.5f;
  std::vector<float> y = run(&half, false, &unused);
  EXPECT_EQ(unused, "bias");
  ASSERT_EQ(y.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 0.5f) << i;
  y = run(nullptr, true, &unused);  // gain's default
  EXPECT_EQ(unused, "");
  ASSERT_EQ(y.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 3.0f + bias[i]) << i;

  NS::Error* error = nullptr;
  auto none = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  EXPECT_EQ(library->newFunction(MTLSTR("gain_bias"), none.get(), &error), nullptr);
  ASSERT_NE(error, nullptr);
  const std::string message = error->localizedDescription()->utf8String();
  EXPECT_NE(message.find("function constant 'has_bias' (bool at index 0) has no value"),
            std::string::npos)
      << message;
}

TEST_F(RuntimeLibrary, DefaultLibraryDoesNotSeeRuntimeKernels) {
  auto library = compile(kAxpyPlusGroupSum);
  ASSERT_NE(library.get(), nullptr);
  auto default_library = NS::TransferPtr(device_->newDefaultLibrary());
  EXPECT_EQ(default_library->newFunction("axpy_group_sum"), nullptr);
  NS::Error* error = nullptr;
  EXPECT_EQ(library->newFunction(MTLSTR("no_such_kernel"), nullptr, &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorFunctionNotFound);
}

// The names compile and each function's compile are cache entries: a second compile of either
// (in this process or another: the entries are on disk) comes from the cache.
TEST_F(RuntimeLibrary, SecondCompileComesFromTheCache) {
  const metalsim::host::RuntimeSource source{kAxpyPlusGroupSum, "program_source", {}, false, {}};
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto first = metalsim::host::compile_runtime_function(source, "axpy_group_sum");
  const auto t1 = Clock::now();
  const auto second = metalsim::host::compile_runtime_function(source, "axpy_group_sum");
  const auto t2 = Clock::now();
  ASSERT_FALSE(first.path.empty()) << first.error;
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(first.path, second.path);
  EXPECT_EQ(first.path.rfind(dir_ + "/metalsim/", 0), 0u) << first.path;
  const auto checked = metalsim::host::check_runtime_source(source);
  ASSERT_FALSE(checked.path.empty()) << checked.error;
  EXPECT_FALSE(checked.from_cache);
  EXPECT_TRUE(metalsim::host::check_runtime_source(source).from_cache);
  std::printf("runtime compile of one function: first %.0f ms, from the cache %.2f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
}

// Three kernels: a plain one, a template with two [[host_name]] instances, and a plain one whose
// instantiated body would be large (a fully unrolled loop of 4096 steps). newLibrary compiles
// none of them (it knows their names); newFunction compiles the one asked for, and only it.
constexpr const char* kThreeKernels = R"(#include <metal_stdlib>
using namespace metal;

kernel void add_one(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  v[i] += 1.0f;
}

template <typename T, int K>
kernel void scale_by(device T* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  v[i] *= T(K);
}
template [[host_name("scale_by_3")]] kernel void scale_by<float, 3>(device float*, uint);
template [[host_name("scale_by_7")]] kernel void scale_by<float, 7>(device float*, uint);

kernel void unrolled_sum(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  float s = 0.0f;
#pragma clang loop unroll(full)
  for (int k = 0; k < 4096; ++k) s += v[(i + uint(k)) % 64u] * float(k % 13);
  v[i] = s;
}
)";

TEST_F(RuntimeLibrary, CompilesOnlyTheFunctionsAskedFor) {
  const metalsim::host::RuntimeSource source{kThreeKernels, "program_source", {}, true, {}};
  const metalsim::host::KernelCache cache(metalsim::host::KernelCache::default_dir());
  auto compiled = [&](const char* name) {
    return !cache.lookup(metalsim::host::runtime_function_key(source, name)).empty();
  };
  auto library = compile(kThreeKernels);
  ASSERT_NE(library.get(), nullptr);
  EXPECT_EQ(library->functionNames(),
            (std::vector<std::string>{"add_one", "scale_by_3", "scale_by_7", "unrolled_sum"}));
  for (const char* name : {"add_one", "scale_by_3", "scale_by_7", "unrolled_sum"})
    EXPECT_FALSE(compiled(name)) << name << " compiled by newLibrary";

  const std::vector<float> v = random_floats(64, 41);
  auto vb = buffer(v);
  dispatch(library.get(), "scale_by_7", {vb}, v.size(), 32);
  std::vector<float> out = contents<float>(vb.get());
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(out[i], v[i] * 7.0f) << i;
  EXPECT_TRUE(compiled("scale_by_7"));
  for (const char* name : {"add_one", "scale_by_3", "unrolled_sum"})
    EXPECT_FALSE(compiled(name)) << name << " compiled with scale_by_7";

  // A second function of the same library: its own compile, the first one's result kept.
  dispatch(library.get(), "add_one", {vb}, v.size(), 32);
  out = contents<float>(vb.get());
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(out[i], v[i] * 7.0f + 1.0f) << i;
  EXPECT_TRUE(compiled("add_one"));
  EXPECT_FALSE(compiled("scale_by_3"));
  EXPECT_FALSE(compiled("unrolled_sum"));

  // A second library of the same source shares the functions compiled (nothing compiles).
  auto again = compile(kThreeKernels);
  auto fn = NS::TransferPtr(again->newFunction(MTLSTR("scale_by_7")));
  EXPECT_NE(fn.get(), nullptr);
  EXPECT_FALSE(compiled("unrolled_sum"));
}

// Threads asking one library for functions at the same time: each function is compiled once
// (its askers wait for it) while another compiles beside it, and every thread gets a function
// that computes what its kernel says.
TEST_F(RuntimeLibrary, ThreadsAskingTogetherEachGetTheirFunction) {
  auto library = compile(kThreeKernels);
  ASSERT_NE(library.get(), nullptr);
  const std::vector<const char*> asked = {"scale_by_3", "unrolled_sum", "scale_by_3",
                                          "unrolled_sum"};
  std::vector<NS::SharedPtr<MTL::Function>> got(asked.size());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < asked.size(); ++t)
    threads.emplace_back(
        [&, t] { got[t] = NS::TransferPtr(library->newFunction(NS::String::string(asked[t]))); });
  for (std::thread& t : threads) t.join();
  for (size_t t = 0; t < asked.size(); ++t) {
    ASSERT_NE(got[t].get(), nullptr) << asked[t];
    EXPECT_STREQ(got[t]->name()->utf8String(), asked[t]);
  }
  const std::vector<float> v = random_floats(64, 43);
  auto vb = buffer(v);
  dispatch(library.get(), "scale_by_3", {vb}, v.size(), 32);
  const std::vector<float> out = contents<float>(vb.get());
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(out[i], v[i] * 3.0f) << i;
}

// A function's entry survives the process (it is on disk), and a change of the source, of its
// options or of an included header makes a new one.
TEST_F(RuntimeLibrary, FunctionCacheHitsAcrossProcessesAndFollowsTheSource) {
  metalsim::host::RuntimeSource source{kThreeKernels, "program_source", {}, true, {}};
  ASSERT_FALSE(metalsim::host::compile_runtime_function(source, "add_one").from_cache);
  // Another process: nothing but the cache directory is shared.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const auto again = metalsim::host::compile_runtime_function(source, "add_one");
    _exit(!again.path.empty() && again.from_cache ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;

  const std::string key = metalsim::host::runtime_function_key(source, "add_one");
  source.text += "// an edit\n";
  EXPECT_NE(metalsim::host::runtime_function_key(source, "add_one"), key);
  EXPECT_FALSE(metalsim::host::compile_runtime_function(source, "add_one").from_cache);
  source.fast_math = false;
  EXPECT_NE(metalsim::host::runtime_function_key(source, "add_one"), key);
  source.macros.emplace_back("UNUSED", "1");
  EXPECT_FALSE(metalsim::host::compile_runtime_function(source, "add_one").from_cache);
  EXPECT_TRUE(metalsim::host::compile_runtime_function(source, "add_one").from_cache);
}

// Metal's newLibrary fails on an error anywhere in the source: a kernel nobody asks for, or a
// function no kernel calls, still fails it, at its line.
TEST_F(RuntimeLibrary, AnErrorAnywhereFailsNewLibraryAtItsLine) {
  std::string source = kThreeKernels;
  source += "\nfloat helper(float x) {\n  return x +;\n}\n";  // the error on line 23
  std::string error = compile_error(source);
  EXPECT_NE(error.find("program_source:23:"), std::string::npos) << error;
  std::string in_kernel = kThreeKernels;
  in_kernel.replace(in_kernel.find("s += v"), 0, "s = s * ;\n  ");  // the error on line 18
  error = compile_error(in_kernel);
  EXPECT_NE(error.find("program_source:18:"), std::string::npos) << error;
}

// A quoted header is part of the key: editing it compiles afresh.
TEST_F(RuntimeLibrary, EditedHeaderRecompiles) {
  const std::string header = dir_ + "/scale.h", metal = dir_ + "/scale.metal";
  std::ofstream(header) << "#define SCALE_BY 3.0f\n";
  std::ofstream(metal) << "#include <metal_stdlib>\n#include \"scale.h\"\nusing namespace metal;\n"
                          "kernel void scale(device float* v [[buffer(0)]], uint i "
                          "[[thread_position_in_grid]]) { v[i] *= SCALE_BY; }\n";
  auto run = [&](float factor) {
    NS::Error* error = nullptr;
    auto library = NS::TransferPtr(
        device_->newLibrary(NS::URL::fileURLWithPath(MTLSTR(metal.c_str())), &error));
    ASSERT_NE(library.get(), nullptr) << (error ? error->localizedDescription()->utf8String() : "");
    const std::vector<float> v = random_floats(96, 7);
    auto vb = buffer(v);
    dispatch(library.get(), "scale", {vb}, v.size(), 32);
    const std::vector<float> out = contents<float>(vb.get());
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(out[i], v[i] * factor) << i;
  };
  run(3.0f);
  std::ofstream(header) << "#define SCALE_BY 5.0f\n";
  run(5.0f);
}

TEST_F(RuntimeLibrary, CompilerErrorNamesProgramSourceAndLine) {
  const std::string error = compile_error(
      "#include <metal_stdlib>\nusing namespace metal;\n"
      "kernel void broken(device float* v [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
      "  v[i] = undeclared_name;\n}\n");
  EXPECT_NE(error.find("program_source:4:"), std::string::npos) << error;
  EXPECT_NE(error.find("undeclared_name"), std::string::npos) << error;
}

// What the front rejects (a kernel defined inside a macro) is an error at its line too.
TEST_F(RuntimeLibrary, FrontErrorNamesProgramSourceAndLine) {
  const std::string error = compile_error(
      "#include <metal_stdlib>\nusing namespace metal;\n\n#define MAKE_KERNEL kernel void k(device "
      "float* v [[buffer(0)]]) { v[0] = 1.0f; }\nMAKE_KERNEL\n");
  EXPECT_NE(error.find("program_source:4: error:"), std::string::npos) << error;
  EXPECT_NE(error.find("macro"), std::string::npos) << error;
}

TEST_F(RuntimeLibrary, FileErrorNamesTheFile) {
  const std::string metal = dir_ + "/broken.metal";
  std::ofstream(metal) << "#include <metal_stdlib>\nusing namespace metal;\n\n"
                          "kernel void broken(device float* v [[buffer(0)]]) { v[0] = 1.0f }\n";
  NS::Error* error = nullptr;
  EXPECT_EQ(device_->newLibrary(NS::URL::fileURLWithPath(MTLSTR(metal.c_str())), &error), nullptr);
  ASSERT_NE(error, nullptr);
  const std::string text = error->localizedDescription()->utf8String();
  EXPECT_NE(text.find(metal + ":4:"), std::string::npos) << text;
}

TEST_F(RuntimeLibrary, MissingFileIsFileNotFound) {
  NS::Error* error = nullptr;
  EXPECT_EQ(device_->newLibrary(NS::URL::fileURLWithPath(MTLSTR("/nonexistent/k.metal")), &error),
            nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorFileNotFound);
  EXPECT_NE(std::string(error->localizedDescription()->utf8String()).find("/nonexistent/k.metal"),
            std::string::npos);
}

constexpr const char* kScaleByMacros = R"(#include <metal_stdlib>
using namespace metal;
kernel void scale_add(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  y[i] = SCALE * x[i] + OFFSET;
}
)";

TEST_F(RuntimeLibrary, PreprocessorMacrosReachTheCompiler) {
  auto options = NS::TransferPtr(safe_math());
  const NS::Object* values[] = {NS::Number::number(3), MTLSTR("0.25f")};
  const NS::Object* keys[] = {MTLSTR("SCALE"), MTLSTR("OFFSET")};
  options->setPreprocessorMacros(NS::Dictionary::dictionary(values, keys, 2));
  auto library = compile(kScaleByMacros, options.get());
  ASSERT_NE(library.get(), nullptr);
  const std::vector<float> x = random_floats(200, 21);
  auto xb = buffer(x);
  auto yb = buffer(poison(x.size()));
  dispatch(library.get(), "scale_add", {xb, yb}, x.size(), 64);
  const std::vector<float> y = contents<float>(yb.get());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 3 * x[i] + 0.25f) << i;
}

TEST_F(RuntimeLibrary, MissingMacroIsACompileError) {
  const std::string error = compile_error(kScaleByMacros);
  EXPECT_NE(error.find("program_source:5:"), std::string::npos) << error;
  EXPECT_NE(error.find("SCALE"), std::string::npos) << error;
}

// (x + y) - y with y huge: 0 when every operation rounds as written, x when the compiler
// reassociates. metalsim's fast math (Metal's default) changes no value, so that fibers and lane
// loops, which are compiled into different code, round alike (cmake/MetalsimMathMode.cmake).
constexpr const char* kCancellation = R"(#include <metal_stdlib>
using namespace metal;
kernel void cancel(device const float* x [[buffer(0)]], device const float* y [[buffer(1)]],
                   device float* out [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  out[i] = (x[i] + y[i]) - y[i];
}
)";

TEST_F(RuntimeLibrary, MathModeReachesTheCompilerAndChangesNoValue) {
  const std::vector<float> x = random_floats(32, 5), y(32, 1e30f);
  auto run = [&](const MTL::CompileOptions* options) {
    auto library = compile(kCancellation, options);
    auto xb = buffer(x), yb = buffer(y), out = buffer(poison(x.size()));
    dispatch(library.get(), "cancel", {xb, yb, out}, x.size(), 32);
    return contents<float>(out.get());
  };
  auto safe = NS::TransferPtr(safe_math());
  for (float v : run(safe.get())) EXPECT_EQ(v, 0.0f);
  for (float v : run(nullptr)) EXPECT_EQ(v, 0.0f);  // Metal's default: fast math

  // The mode reaches the compiler: its own flags, and its own cache entry.
  const std::vector<std::string> fast_flags = metalsim::host::math_mode_flags(true);
  EXPECT_TRUE(metalsim::host::math_mode_flags(false).empty());
  EXPECT_NE(std::find(fast_flags.begin(), fast_flags.end(), "-fno-math-errno"), fast_flags.end());
  for (const char* changes_values : {"-fassociative-math", "-freciprocal-math", "-ffast-math",
                                     "-ffp-contract=fast", "-fapprox-func", "-fno-signed-zeros"})
    EXPECT_EQ(std::find(fast_flags.begin(), fast_flags.end(), changes_values), fast_flags.end())
        << changes_values;
  metalsim::host::RuntimeSource source;
  source.name = "cancel.metal";
  source.text = kCancellation;
  source.fast_math = true;
  const std::string fast_key = metalsim::host::runtime_cache_key(source);
  source.fast_math = false;
  EXPECT_NE(metalsim::host::runtime_cache_key(source), fast_key);
}

// A fault in a kernel compiled from a string is reported at its program_source line.
TEST_F(RuntimeLibrary, FaultReportNamesTheProgramSourceLine) {
  auto library = compile(
      "#include <metal_stdlib>\nusing namespace metal;\nkernel void past_the_end(device float* v "
      "[[buffer(0)]],\n    uint i [[thread_position_in_grid]]) {\n  v[i + 64] = 1.0f;\n}\n");
  ASSERT_NE(library.get(), nullptr);
  auto v = buffer(random_floats(64, 9));
  MTL::CommandBuffer* cb = dispatch_one_buffer(library.get(), "past_the_end", v.get(), 64);
  ASSERT_FALSE(cb->reports().empty());
  EXPECT_EQ(cb->reports()[0].site.str(), "program_source:5") << cb->reports()[0].format();
}

// A report made inside metalsim's MSL headers (simdgroup_load's combine reads past the end) names
// the program_source line that called it, and the header's line second (docs/checks.md); an
// access past a private array names the program_source line and the variable.
TEST_F(RuntimeLibrary, ReportsInsideTheHeadersAndPrivateArraysNameTheProgramSourceLine) {
  auto library = compile(
      "#include <metal_stdlib>\nusing namespace metal;\n"
      "kernel void load_past_the_end(device float* v [[buffer(0)]]) {\n"
      "  simdgroup_float8x8 m;\n  simdgroup_load(m, v + 8, 8);\n  simdgroup_store(m, v, 8);\n}\n"
      "kernel void private_past_the_end(device float* v [[buffer(0)]],\n"
      "    uint i [[thread_position_in_grid]]) {\n  float local[4] = {1, 2, 3, 4};\n"
      "  local[min(i, 4u)] = v[i];\n  v[i] = local[i % 4];\n}\n");
  ASSERT_NE(library.get(), nullptr);
  const struct {
    const char* kernel;
    const char* site;
    const char* text;  // a line the report must hold
  } cases[] = {{"load_past_the_end", "program_source:5", "    in metalsim's simdgroup_matrix.h:"},
               {"private_past_the_end", "program_source:11", "memory thread array 'local'"}};
  for (const auto& c : cases) {
    auto v = buffer(random_floats(64, 9));
    MTL::CommandBuffer* cb = dispatch_one_buffer(library.get(), c.kernel, v.get(), 32);
    ASSERT_FALSE(cb->reports().empty()) << c.kernel;
    const std::string text = cb->reports()[0].format();
    EXPECT_EQ(cb->reports()[0].site.str(), c.site) << text;
    EXPECT_NE(text.find(c.text), std::string::npos) << text;
  }
}

// Two libraries define `cancel` differently: each library's function is its own.
TEST_F(RuntimeLibrary, TwoLibrariesMayShareAKernelName) {
  auto negate = compile(
      "#include <metal_stdlib>\nusing namespace metal;\nkernel void cancel(device float* v "
      "[[buffer(0)]], uint i [[thread_position_in_grid]]) { v[i] = -v[i]; }\n");
  auto twice = compile(
      "#include <metal_stdlib>\nusing namespace metal;\nkernel void cancel(device float* v "
      "[[buffer(0)]], uint i [[thread_position_in_grid]]) { v[i] = 2 * v[i]; }\n");
  ASSERT_NE(negate.get(), nullptr);
  ASSERT_NE(twice.get(), nullptr);
  const std::vector<float> v = random_floats(64, 3);
  auto a = buffer(v), b = buffer(v);
  dispatch(negate.get(), "cancel", {a}, v.size(), 32);
  dispatch(twice.get(), "cancel", {b}, v.size(), 32);
  const auto na = contents<float>(a.get()), nb = contents<float>(b.get());
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(na[i], -v[i]) << i;
    ASSERT_EQ(nb[i], 2 * v[i]) << i;
  }
}

// A texture kernel compiled at run time, bound and read back in metal-cpp's spelling.
TEST_F(RuntimeLibrary, TextureKernelFromSource) {
  auto library = compile(
      "#include <metal_stdlib>\n"
      "using namespace metal;\n"
      "kernel void fill(texture2d<float, access::write> out [[texture(0)]],\n"
      "                 sampler unused [[sampler(1)]],\n"
      "                 uint2 gid [[thread_position_in_grid]]) {\n"
      "  out.write(float4(float(gid.x), float(gid.y), 0.5f, 1.0f), gid);\n"
      "}\n");
  ASSERT_NE(library.get(), nullptr);
  NS::Error* error = nullptr;
  auto fn = NS::TransferPtr(library->newFunction(MTLSTR("fill")));
  auto pso = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
  auto* d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatRGBA16Float, 5, 3, false);
  d->setUsage(MTL::TextureUsageShaderWrite);
  auto tex = NS::TransferPtr(device_->newTexture(d));
  auto sd = NS::TransferPtr(MTL::SamplerDescriptor::alloc()->init());
  auto smp = NS::TransferPtr(device_->newSamplerState(sd.get()));
  auto queue = NS::TransferPtr(device_->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso.get());
  enc->setTexture(tex.get(), 0);
  enc->setSamplerState(smp.get(), 1);
  enc->dispatchThreads(MTL::Size(5, 3, 1), MTL::Size(4, 2, 1));
  enc->endEncoding();
  cb->commit();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  std::vector<_Float16> px(5 * 3 * 4);
  tex->getBytes(px.data(), 5 * 8, MTL::Region::Make2D(0, 0, 5, 3), 0);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) {
      const _Float16* p = &px[size_t((y * 5 + x) * 4)];
      EXPECT_EQ(float(p[0]), float(x));
      EXPECT_EQ(float(p[1]), float(y));
      EXPECT_EQ(float(p[2]), 0.5f);
      EXPECT_EQ(float(p[3]), 1.0f);
    }
}

// ------------------------------ no-copy buffers (newBuffer with a deallocator)

// Memory of the caller's: `bytes` bytes from `offset` into a 4 KiB-aligned allocation of whole
// pages, freed by the deallocator the tests hand to newBuffer.
struct CallerMemory {
  CallerMemory(size_t bytes, size_t offset) : offset(offset) {
    const size_t size = (offset + bytes + 4095) / 4096 * 4096;
    base = static_cast<char*>(std::aligned_alloc(4096, size));
  }
  char* at() const { return base + offset; }
  char* base;
  size_t offset;
};

constexpr const char* kNoCopyKernels = R"(#include <metal_stdlib>
using namespace metal;

kernel void scale_add(device const float* x [[buffer(0)]],
                      device float* y [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  y[i] = 3.0f * x[i] + y[i];
}

kernel void read_next(device const float* v [[buffer(0)]],
                      device float* out [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  out[i] = v[i + 1];
}

kernel void read_previous(device const float* v [[buffer(0)]],
                          device float* out [[buffer(1)]],
                          uint i [[thread_position_in_grid]]) {
  out[i] = v[int(i) - 1];
}

kernel void every_thread_writes_the_first(device uchar* v [[buffer(0)]],
                                          uint i [[thread_position_in_grid]]) {
  v[0] = uchar(i);
}
)";

// A kernel reads and writes the caller's memory itself (contents() is the pointer), under every
// check (the init check's reruns restore and compare it, the racecheck shadows it) and under
// sync,mem, and matches the scalar model on seeded random data; the deallocator runs once, with
// the pointer and the length, when the buffer goes.
TEST_F(RuntimeLibrary, NoCopyBufferIsTheCallersMemory) {
  auto library = compile(kNoCopyKernels);
  ASSERT_NE(library.get(), nullptr);
  const size_t n = 1000;  // 4000 bytes: the last granule is the buffer's whole
  for (const char* checks : {"sync,mem", "all"}) {
    for (const size_t offset : {size_t(0), size_t(4)}) {  // 16-byte aligned, and not
      SCOPED_TRACE(std::string(checks) + ", offset " + std::to_string(offset));
      const std::vector<float> x = random_floats(n, 41), y0 = random_floats(n, 42);
      CallerMemory xm(n * 4, offset), ym(n * 4, offset);
      std::memcpy(xm.at(), x.data(), n * 4);
      std::memcpy(ym.at(), y0.data(), n * 4);
      std::vector<std::pair<void*, NS::UInteger>> freed;
      const auto release = [&](void* p, NS::UInteger length) {
        freed.emplace_back(p, length);
        std::free(static_cast<char*>(p) - offset);
      };
      {
        auto xb = NS::TransferPtr(
            device_->newBuffer(xm.at(), n * 4, MTL::ResourceStorageModeShared, release));
        auto yb = NS::TransferPtr(
            device_->newBuffer(ym.at(), n * 4, MTL::ResourceStorageModeShared, release));
        ASSERT_NE(xb.get(), nullptr);
        EXPECT_EQ(xb->contents(), xm.at());
        EXPECT_EQ(xb->length(), n * 4);
        EXPECT_TRUE(xb->isNoCopy());
        metalsim::ExecutionOptions options = device_->executionOptions();
        ASSERT_TRUE(metalsim::CheckSet::parse(checks, options.checks));
        dispatch(library.get(), "scale_add", {xb, yb}, n, 64, &options);
        const auto* y = reinterpret_cast<const float*>(ym.at());
        for (size_t i = 0; i < n; ++i)
          ASSERT_FLOAT_EQ(y[i], 3.0f * x[i] + y0[i]) << "y[" << i << "]";
        EXPECT_TRUE(freed.empty());
      }
      ASSERT_EQ(freed.size(), 2u);
      EXPECT_EQ(freed[0].second, n * 4);
    }
  }
  // No deallocator: the memory stays the caller's.
  std::vector<float> v(16, 1.0f);
  {
    auto b =
        NS::TransferPtr(device_->newBuffer(v.data(), 64, MTL::ResourceStorageModeShared, nullptr));
    EXPECT_EQ(b->contents(), v.data());
  }
  EXPECT_EQ(v[15], 1.0f);
  EXPECT_EQ(device_->newBuffer(nullptr, 64, MTL::ResourceStorageModeShared, nullptr), nullptr);
}

// With mem on, a read one element past a no-copy buffer of odd length (into the rest of its last
// 16-byte granule) and one element before one that starts inside a granule are bounds.device,
// naming the binding and the byte offset; the shadow of those granules is as before once the
// buffer is gone.
TEST_F(RuntimeLibrary, NoCopyBufferOutOfBoundsReadIsBoundsDevice) {
  if (!metalsim::engine::fast_variants_built() || !metalsim::checks::shadow::active())
    GTEST_SKIP() << "kernels built without the access-check pass, or no access shadow";
  auto library = compile(kNoCopyKernels);
  ASSERT_NE(library.get(), nullptr);
  const struct {
    const char* kernel;
    size_t offset;  // of the buffer in its page
    int64_t bad;    // the byte offset the report names
  } cases[] = {{"read_next", 0, 63 * 4}, {"read_previous", 4, -4}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.kernel);
    const size_t n = 63;  // 252 bytes
    CallerMemory m(n * 4, c.offset);
    const std::vector<float> v = random_floats(n, 7);
    std::memcpy(m.at(), v.data(), n * 4);
    const char* edge = c.bad > 0 ? m.at() + n * 4 : m.base;  // a byte of a shared granule
    const uint8_t before = metalsim::checks::shadow::granule_value(edge);
    {
      auto vb = NS::TransferPtr(
          device_->newBuffer(m.at(), n * 4, MTL::ResourceStorageModeShared, nullptr));
      vb->setLabel(MTLSTR("caller"));
      auto out = buffer(poison(n));
      NS::Error* error = nullptr;
      auto fn = NS::TransferPtr(library->newFunction(MTLSTR(c.kernel)));
      auto pso = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
      auto queue = NS::TransferPtr(device_->newCommandQueue());
      MTL::CommandBuffer* cb = queue->commandBuffer();
      metalsim::ExecutionOptions options = device_->executionOptions();
      options.checks = metalsim::CheckSet::none();
      options.checks.sync = options.checks.mem = true;
      cb->setExecutionOptions(options);
      MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
      enc->setComputePipelineState(pso.get());
      enc->setBuffer(vb.get(), 0, 0);
      enc->setBuffer(out.get(), 0, 1);
      enc->dispatchThreads(MTL::Size(n, 1, 1), MTL::Size(32, 1, 1));
      enc->endEncoding();
      cb->commit();
      cb->waitUntilCompleted();
      ASSERT_FALSE(cb->reports().empty());
      const auto& r = cb->reports()[0];
      EXPECT_EQ(r.check, metalsim::report::CheckId::bounds_device) << r.format();
      EXPECT_EQ(r.memory, "buffer(0) 'v' (caller)") << r.format();
      EXPECT_TRUE(r.has_offset);
      EXPECT_EQ(r.offset, c.bad) << r.format();
    }
    EXPECT_EQ(metalsim::checks::shadow::granule_value(edge), before);
    std::free(m.base);
  }
}

// A loop across lanes whose region reads the row length from buffer(1) and writes buffer(2) is
// taken on the premise that the two bindings are different memory (docs/lanes.md, "The region
// around the loop"). Bound to one buffer (the length in its first word, the sums after it), the
// dispatch runs on fibers in auto mode, with the same sums, and `loops` is refused naming both
// bindings.
TEST_F(RuntimeLibrary, ABufferBoundTwiceKeepsItsLoopsAcrossLanesOff) {
  auto library = compile(R"(#include <metal_stdlib>
using namespace metal;
kernel void row_sums(device const float* x [[buffer(0)]], constant uint& n [[buffer(1)]],
                     device float* out [[buffer(2)]], uint tid [[thread_index_in_threadgroup]],
                     uint group [[threadgroup_position_in_grid]],
                     uint threads [[threads_per_threadgroup]]) {
  float acc = 0.0f;
  for (uint i = tid; i < n; i += threads) acc += x[group * n + i];
  out[group * threads + tid] = acc;
}
)",
                         NS::TransferPtr(safe_math()).get());  // each lane's sum in order: exact
  ASSERT_NE(library.get(), nullptr);
  const uint32_t n = 300, groups = 3, tg = 64;
  const std::vector<float> x = random_floats(n * groups, 41);
  std::vector<float> expected(groups * tg, 0.0f);
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t t = 0; t < tg; ++t)
      for (uint32_t i = t; i < n; i += tg) expected[g * tg + t] += x[g * n + i];
  auto xb = buffer(x);
  auto fn = NS::TransferPtr(library->newFunction(MTLSTR("row_sums")));
  NS::Error* error = nullptr;
  auto pso = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
  ASSERT_NE(pso.get(), nullptr);
  auto queue = NS::TransferPtr(device_->newCommandQueue());
  for (auto mode : {metalsim::ExecutionMode::automatic, metalsim::ExecutionMode::loops}) {
    // One buffer: n, then the sums (poisoned).
    std::vector<float> both = poison(1 + groups * tg);
    std::memcpy(both.data(), &n, 4);
    auto bb = buffer(both);
    MTL::CommandBuffer* cb = queue->commandBuffer();
    metalsim::ExecutionOptions options = device_->executionOptions();
    options.checks = metalsim::CheckSet::none();
    options.checks.sync = true;
    options.mode = mode;
    cb->setExecutionOptions(options);
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    enc->setBuffer(xb.get(), 0, 0);
    enc->setBuffer(bb.get(), 0, 1);
    enc->setBuffer(bb.get(), 4, 2);
    enc->dispatchThreadgroups(MTL::Size(groups, 1, 1), MTL::Size(tg, 1, 1));
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    std::string reports;
    for (const auto& r : cb->reports()) reports += r.format();
    if (mode == metalsim::ExecutionMode::loops) {
      ASSERT_FALSE(cb->reports().empty()) << "lane loops ran with a buffer bound twice";
      EXPECT_EQ(cb->reports()[0].check, metalsim::report::CheckId::mode_unavailable) << reports;
      EXPECT_NE(reports.find("buffer(2) 'out', which it writes, and buffer(1) 'n' share memory"),
                std::string::npos)
          << reports;
      continue;
    }
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << reports;
    const std::vector<float> got = contents<float>(bb.get());
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_EQ(got[1 + i], expected[i]) << "out[" << i << "]";  // NaN fails
  }
}

// The racecheck keeps its shadow of a no-copy buffer by address, whatever its alignment: the
// threads' unsynchronised writes to one byte of a buffer that starts one byte into a word are
// race.device.
TEST_F(RuntimeLibrary, NoCopyBufferRaceIsRaceDevice) {
  if (!metalsim::engine::fast_variants_built())
    GTEST_SKIP() << "kernels built without the access-check pass";
  auto library = compile(kNoCopyKernels);
  ASSERT_NE(library.get(), nullptr);
  CallerMemory m(64, 1);
  auto vb =
      NS::TransferPtr(device_->newBuffer(m.at(), 63, MTL::ResourceStorageModeShared, nullptr));
  NS::Error* error = nullptr;
  auto fn = NS::TransferPtr(library->newFunction(MTLSTR("every_thread_writes_the_first")));
  auto pso = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
  auto queue = NS::TransferPtr(device_->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  metalsim::ExecutionOptions options = device_->executionOptions();
  ASSERT_TRUE(metalsim::CheckSet::parse("sync,mem,race", options.checks));
  options.mode = metalsim::ExecutionMode::fibers;
  cb->setExecutionOptions(options);
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso.get());
  enc->setBuffer(vb.get(), 0, 0);
  enc->dispatchThreads(MTL::Size(64, 1, 1), MTL::Size(32, 1, 1));
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  ASSERT_FALSE(cb->reports().empty());
  EXPECT_EQ(cb->reports()[0].check, metalsim::report::CheckId::race_device)
      << cb->reports()[0].format();
  vb.reset();
  std::free(m.base);
}

}  // namespace
