// The stand-ins for MLX's constructs (metal/front_mlx_constructs.metal) compiled through the front
// and run through the host API against scalar models on seeded random inputs. Outputs start
// poisoned, so an element the kernel did not write fails.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "front_host_run.h"

namespace {

using metalsim::front::testing::HostRun;

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

std::vector<float> random_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

std::vector<int> random_ints(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (int& x : v) x = d(rng);
  return v;
}

template <class T>
const T* contents(const NS::SharedPtr<MTL::Buffer>& b) {
  return static_cast<const T*>(b->contents());
}

// Function constants declared as `MY_CONST int fc_scale [[function_constant(0)]];` with
// `#define MY_CONST static constant constexpr const` (MLX's fft.h), and one derived from them.
TEST(FrontMlxConstructs, FunctionConstantsThroughASpecifierMacro) {
  for (bool offset : {true, false}) {
    SCOPED_TRACE(offset);
    HostRun r;
    const std::vector<float> x = random_floats(77, -4, 4, 11);
    auto bx = r.buffer(x);
    auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
    int scale = 3;
    constants->setConstantValue(&scale, MTL::DataTypeInt, 0);
    constants->setConstantValue(&offset, MTL::DataTypeBool, 1);
    MTL::CommandBuffer* cb = r.dispatch(
        "macro_constants", constants.get(),
        [&](MTL::ComputeCommandEncoder* e) { e->setBuffer(bx.get(), 0, 0); }, MTL::Size(7, 1, 1),
        MTL::Size(11, 1, 1));
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(contents<float>(bx)[i],
                x[i] * 3.0f + (offset ? 1.0f : 0.0f) + (offset ? 10.0f : 0.0f))
          << i;
  }
}

// Instances whose parameter types decide the template arguments (MLX's conv.metal).
TEST(FrontMlxConstructs, InstancesDeducedFromParameterTypes) {
  HostRun r;
  const size_t n = 45;
  {
    const std::vector<float> in = random_floats(n + 5, -10, 10, 12);
    const int strides[2] = {1, 5};
    auto bin = r.buffer(in);
    auto bout = r.buffer(std::vector<float>(n, kPoison));
    MTL::CommandBuffer* cb = r.dispatch(
        "strided_sum_float32_2", nullptr,
        [&](MTL::ComputeCommandEncoder* e) {
          e->setBuffer(bin.get(), 0, 0);
          e->setBuffer(bout.get(), 0, 1);
          e->setBytes(strides, sizeof(strides), 2);
        },
        MTL::Size(5, 1, 1), MTL::Size(9, 1, 1));
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(contents<float>(bout)[i], 0.0f + in[i + 1] + in[i + 5]) << i;
  }
  {
    const std::vector<int> in = random_ints(n + 7, -1000, 1000, 13);
    const int strides[3] = {0, 2, 7};
    auto bin = r.buffer(in);
    auto bout = r.buffer(std::vector<int>(n, INT32_MIN));
    MTL::CommandBuffer* cb = r.dispatch(
        "strided_sum_int32_3", nullptr,
        [&](MTL::ComputeCommandEncoder* e) {
          e->setBuffer(bin.get(), 0, 0);
          e->setBuffer(bout.get(), 0, 1);
          e->setBytes(strides, sizeof(strides), 2);
        },
        MTL::Size(5, 1, 1), MTL::Size(9, 1, 1));
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(contents<int>(bout)[i], in[i] + in[i + 2] + in[i + 7]) << i;
  }
}

// `threadgroup float partial[32] = {0};` (MLX's layer_norm): shared storage as without the
// initializer; every lane writes its element before the barrier.
TEST(FrontMlxConstructs, ThreadgroupArrayWithInitializer) {
  HostRun r;
  const size_t groups = 3, width = 20;
  const std::vector<float> in = random_floats(groups * width, -1, 1, 14);
  auto bin = r.buffer(in);
  auto bout = r.buffer(std::vector<float>(groups, kPoison));
  MTL::CommandBuffer* cb = r.dispatch(
      "tg_initializer", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bin.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
      },
      MTL::Size(groups, 1, 1), MTL::Size(width, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  for (size_t g = 0; g < groups; ++g) {
    float s = 0;
    for (size_t k = 0; k < width; ++k) s += in[g * width + k];
    ASSERT_EQ(contents<float>(bout)[g], s) << g;
  }
}

// Partial specializations on `thread T*`, `device T*`, `constant T*`, `threadgroup T*` (MLX's
// steel/utils/type_traits.h) and remove_addrspace_t.
TEST(FrontMlxConstructs, AddressSpaceSpecializations) {
  HostRun r;
  const std::vector<float> in = random_floats(50, -100, 100, 15);
  auto bin = r.buffer(in);
  auto bout = r.buffer(std::vector<int>(in.size(), INT32_MIN));
  MTL::CommandBuffer* cb = r.dispatch(
      "address_space_traits", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bin.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
      },
      MTL::Size(5, 1, 1), MTL::Size(10, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(contents<int>(bout)[i], int(in[i] * 2.5f)) << i;
}

// metal::array returned from a functor (binary_ops.h's DivMod), uniform<int> arithmetic (gemv.h),
// `uint4 ks = {a, b, c}` with the fourth component zero (random.metal), _disjunction (atomic.h).
TEST(FrontMlxConstructs, ArrayUniformShortVectorDisjunction) {
  HostRun r;
  const int n = 37;
  const int threads = (n + 3) / 4;  // 10
  const uint32_t dispatched = 16;
  const std::vector<int> a = random_ints(n, -5000, 5000, 16);
  std::vector<int> b = random_ints(n, -60, 60, 17);
  for (int& x : b) x = x == 0 ? 7 : x;
  auto ba = r.buffer(a), bb = r.buffer(b);
  auto bq = r.buffer(std::vector<int>(n, INT32_MIN)),
       brem = r.buffer(std::vector<int>(n, INT32_MIN));
  auto bv = r.buffer(std::vector<uint32_t>(dispatched, 0xdeadbeefu));
  MTL::CommandBuffer* cb = r.dispatch(
      "library_types", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(ba.get(), 0, 0);
        e->setBuffer(bb.get(), 0, 1);
        e->setBuffer(bq.get(), 0, 2);
        e->setBuffer(brem.get(), 0, 3);
        e->setBuffer(bv.get(), 0, 4);
        e->setBytes(&n, sizeof(n), 5);
      },
      MTL::Size(1, 1, 1), MTL::Size(dispatched, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(contents<int>(bq)[k], a[size_t(k)] / b[size_t(k)]) << k;
    ASSERT_EQ(contents<int>(brem)[k], a[size_t(k)] % b[size_t(k)]) << k;
  }
  for (uint32_t i = 0; i < dispatched; ++i) {
    const uint32_t want = int(i) < threads ? i + i * 2u * 100u + (i ^ 7u) * 10000u : 0xdeadbeefu;
    ASSERT_EQ(contents<uint32_t>(bv)[i], want) << i;
  }
}

// `volatile coherent(device) device uint*` and atomic_thread_fence with a thread scope
// (MLX's fence.metal).
TEST(FrontMlxConstructs, CoherentBufferAndScopedFence) {
  HostRun r;
  std::vector<uint32_t> x(40);
  std::mt19937 rng(18);
  for (uint32_t& v : x) v = rng();
  auto bx = r.buffer(x);
  MTL::CommandBuffer* cb = r.dispatch(
      "coherent_increment", nullptr,
      [&](MTL::ComputeCommandEncoder* e) { e->setBuffer(bx.get(), 0, 0); }, MTL::Size(4, 1, 1),
      MTL::Size(10, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(contents<uint32_t>(bx)[i], x[i] + 1u) << i;
}

// `template <typename T, typename Cmp = Greater<T>>` (MLX's sort.h: the list closed by `>>`).
TEST(FrontMlxConstructs, DefaultTemplateArgumentClosedByShift) {
  HostRun r;
  const std::vector<float> a = random_floats(33, -1, 1, 19), b = random_floats(33, -1, 1, 20);
  auto ba = r.buffer(a), bb = r.buffer(b), bout = r.buffer(std::vector<float>(a.size(), kPoison));
  MTL::CommandBuffer* cb = r.dispatch(
      "pick_greater_float", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(ba.get(), 0, 0);
        e->setBuffer(bb.get(), 0, 1);
        e->setBuffer(bout.get(), 0, 2);
      },
      MTL::Size(3, 1, 1), MTL::Size(11, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(contents<float>(bout)[i], std::max(a[i], b[i])) << i;
}

// `(ma * mb) * mb` on simdgroup_float8x8 (MLX's conv.metal), against double products. The kernel
// accumulates 8 float products per element, twice: within 2 * 8 float roundings of the magnitudes.
TEST(FrontMlxConstructs, SimdgroupMatrixProductOperator) {
  HostRun r;
  const std::vector<float> a = random_floats(64, -2, 2, 21), b = random_floats(64, -2, 2, 22);
  auto ba = r.buffer(a), bb = r.buffer(b), bc = r.buffer(std::vector<float>(64, kPoison));
  MTL::CommandBuffer* cb = r.dispatch(
      "matrix_product", nullptr,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(ba.get(), 0, 0);
        e->setBuffer(bb.get(), 0, 1);
        e->setBuffer(bc.get(), 0, 2);
      },
      MTL::Size(1, 1, 1), MTL::Size(32, 1, 1));
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  auto at = [](const std::vector<float>& m, int row, int col) {
    return double(m[size_t(row * 8 + col)]);
  };
  double p[8][8], pa[8][8];  // a * b and |a| * |b|
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      p[i][j] = pa[i][j] = 0;
      for (int k = 0; k < 8; ++k) {
        p[i][j] += at(a, i, k) * at(b, k, j);
        pa[i][j] += std::abs(at(a, i, k) * at(b, k, j));
      }
    }
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      double want = 0, bound = 0;
      for (int k = 0; k < 8; ++k) {
        want += p[i][k] * at(b, k, j);
        bound += pa[i][k] * std::abs(at(b, k, j));
      }
      const double got = contents<float>(bc)[i * 8 + j];
      ASSERT_LE(std::abs(got - want), 2 * 8 * double(FLT_EPSILON) * bound) << i << "," << j;
    }
}

// Two kernel templates named `overloaded` (MLX's steel_gemm_masked.h): each instance runs its own.
TEST(FrontMlxConstructs, OverloadedKernelTemplates) {
  HostRun r;
  const std::vector<float> x = random_floats(24, -50, 50, 23);
  for (const char* name : {"overloaded_scale", "overloaded_negate"}) {
    SCOPED_TRACE(name);
    auto bx = r.buffer(x);
    MTL::CommandBuffer* cb = r.dispatch(
        name, nullptr, [&](MTL::ComputeCommandEncoder* e) { e->setBuffer(bx.get(), 0, 0); },
        MTL::Size(2, 1, 1), MTL::Size(12, 1, 1));
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
    for (size_t i = 0; i < x.size(); ++i) {
      const float want =
          std::string_view(name) == "overloaded_scale" ? float(int(x[i]) * 3) : -x[i] - 2.0f;
      ASSERT_EQ(contents<float>(bx)[i], want) << i;
    }
  }
}

}  // namespace
