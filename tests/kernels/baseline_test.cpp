// The fast native baselines (kernels/<family>/<family>_baseline.cpp) compute what their family's
// reference computes: each on random inputs from a fixed seed, against the reference, within a
// bound from its arithmetic (float accumulation, half output). A baseline that computed anything
// else would make every ratio in docs/performance.md meaningless. Outputs start as NaN, so an
// element a baseline never wrote fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/embedding/embedding_baseline.h"
#include "kernels/multi_token_matvec/multi_token_matvec_baseline.h"
#include "kernels/quantized_matmul/quantized_matmul_baseline.h"
#include "kernels/spec/inputs.h"
#include "kernels/trellis/trellis_baseline.h"
#include "kernels/trellis/trellis_problem.h"

namespace metalsim::kernels {
namespace {

using half_t = _Float16;
constexpr double kHalfUlp = 0x1p-11, kFloatUlp = 0x1p-24;

// |got - ref| <= bound[i] for every element; got must be finite.
template <class T>
void expect_within(const std::vector<T>& got, const std::vector<double>& ref,
                   const std::vector<double>& bound, const char* what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = double(got[i]);
    ASSERT_TRUE(std::isfinite(g)) << what << "[" << i << "] = " << g;
    ASSERT_LE(std::abs(g - ref[i]), bound[i]) << what << "[" << i << "]: " << g << " vs " << ref[i];
  }
}

// ------------------------------ quantized_matmul

template <class Block>
void randomize(spec::InputGenerator& g, Block& b) {
  using namespace quantized_matmul;
  if constexpr (std::is_same_v<Block, BlockQ4_0>) {
    b.d = half_t(g.uniform(-0.02, 0.02));
    for (uint8_t& q : b.qs) q = uint8_t(g.next_u64());
  } else if constexpr (std::is_same_v<Block, BlockQ8_0>) {
    b.d = half_t(g.uniform(-0.002, 0.002));
    for (int8_t& q : b.qs) q = int8_t(g.integer(-127, 127));
  } else {
    b.d = half_t(g.uniform(0, 0.002));
    b.dmin = half_t(g.uniform(0, 0.002));
    for (uint8_t& s : b.scales) s = uint8_t(g.next_u64());
    for (uint8_t& q : b.qs) q = uint8_t(g.next_u64());
    if constexpr (std::is_same_v<Block, BlockQ5_K>)
      for (uint8_t& h : b.qh) h = uint8_t(g.next_u64());
  }
}

// C = dequant(A) x B: float accumulation over K (K * 2^-24 of the sum of |terms|), then half.
template <class Block, int64_t kBlock>
void check_quantized() {
  using namespace quantized_matmul;
  const int64_t m = 7, n = 3, k = 2 * kBlock, per_row = k / kBlock;
  spec::InputGenerator g(20261126);
  std::vector<Block> a(size_t(m * per_row));
  for (Block& b : a) randomize(g, b);
  const std::vector<half_t> b = g.uniform_vector<half_t>(size_t(k * n), -1, 1);
  std::vector<half_t> c(size_t(m * n), half_t(std::numeric_limits<float>::quiet_NaN()));
  matmul_baseline(a.data(), per_row, b.data(), c.data(), m, n, k);
  const std::vector<double> ref = matmul_ref(a, per_row, b, m, n, k);
  std::vector<double> row(static_cast<size_t>(k)), bound(ref.size());
  for (int64_t r = 0; r < m; ++r) {
    dequantize(a.data() + r * per_row, k, row.data());
    for (int64_t j = 0; j < n; ++j) {
      double magnitude = 0;
      for (int64_t i = 0; i < k; ++i)
        magnitude += std::abs(row[size_t(i)] * double(b[size_t(i * n + j)]));
      const size_t e = size_t(r * n + j);
      bound[e] = kHalfUlp * std::abs(ref[e]) + double(k + 16) * kFloatUlp * magnitude + 0x1p-25;
    }
  }
  expect_within(c, ref, bound, "C");
}

TEST(Baselines, QuantizedMatmulQ4_0) { check_quantized<formats::BlockQ4_0, 32>(); }
TEST(Baselines, QuantizedMatmulQ8_0) { check_quantized<formats::BlockQ8_0, 32>(); }
TEST(Baselines, QuantizedMatmulQ4_K) { check_quantized<formats::BlockQ4_K, 256>(); }
TEST(Baselines, QuantizedMatmulQ5_K) { check_quantized<formats::BlockQ5_K, 256>(); }

// ------------------------------ embedding

TEST(Baselines, EmbeddingLookupsRoundOnceToHalf) {
  using namespace embedding;
  const int64_t vocab = 50, dim = 96;
  const float scale = std::sqrt(float(dim));
  spec::InputGenerator g(7);
  std::vector<uint32_t> ids{3, 49, 50, 0, 0xFFFFFFFFu, 17};
  const std::vector<half_t> table = g.uniform_vector<half_t>(size_t(vocab * dim), -1, 1);
  std::vector<BlockQ8_0> blocks(size_t(vocab * dim / 32));
  for (BlockQ8_0& b : blocks) {
    b.d = half_t(g.uniform(-0.01, 0.01));
    for (int8_t& q : b.qs) q = int8_t(g.integer(-127, 127));
  }
  const int64_t tokens = int64_t(ids.size());
  auto bound_of = [](const std::vector<double>& ref) {
    std::vector<double> bound;
    for (double r : ref) bound.push_back(kHalfUlp * std::abs(r) + 4 * kFloatUlp * std::abs(r));
    return bound;
  };
  std::vector<half_t> out(size_t(tokens * dim), half_t(std::numeric_limits<float>::quiet_NaN()));
  lookup_f16_baseline(ids.data(), tokens, table.data(), vocab, dim, scale, out.data());
  const std::vector<double> ref = lookup_f16_ref(ids, table, vocab, dim, scale);
  expect_within(out, ref, bound_of(ref), "f16 lookup");
  std::fill(out.begin(), out.end(), half_t(std::numeric_limits<float>::quiet_NaN()));
  lookup_q8_0_baseline(ids.data(), tokens, blocks.data(), vocab, dim, scale, out.data());
  const std::vector<double> ref8 = lookup_q8_0_ref(ids, blocks, vocab, dim, scale);
  expect_within(out, ref8, bound_of(ref8), "q8_0 lookup");
}

TEST(Baselines, ArgmaxMatchesTheReferenceWithTiesAndNaN) {
  using namespace embedding;
  const int64_t rows = 4, cols = 1001;
  spec::InputGenerator g(11);
  std::vector<float> logits(size_t(rows * cols));
  for (float& x : logits) x = float(g.integer(0, 40));                          // many ties
  for (int64_t c = 0; c < cols; ++c) logits[size_t(cols + c)] = std::nanf("");  // row 1 all NaN
  for (int64_t c = 0; c < cols; c += 3) logits[size_t(2 * cols + c)] = std::nanf("");
  std::vector<uint32_t> out(size_t(rows), 0xDEADBEEFu);
  argmax_baseline(logits.data(), rows, cols, out.data());
  EXPECT_EQ(out, argmax_ref(logits, rows, cols));
}

// ------------------------------ multi_token_matvec

TEST(Baselines, MultiTokenMatvecAssignsAndAccumulates) {
  using namespace multi_token_matvec;
  const int64_t out_dim = 37, in_dim = 96, batch = 5;
  spec::InputGenerator g(3);
  std::vector<BlockQ4_0> w(size_t(out_dim * in_dim / 32));
  for (BlockQ4_0& b : w) randomize(g, b);
  const std::vector<float> x = g.uniform_vector<float>(size_t(batch * in_dim), -1, 1);
  const std::vector<float> old = g.uniform_vector<float>(size_t(batch * out_dim), -1, 1);
  for (bool accumulate : {false, true}) {
    std::vector<float> out =
        accumulate ? old : std::vector<float>(old.size(), std::numeric_limits<float>::quiet_NaN());
    multi_token_matvec_baseline(w.data(), x.data(), out.data(), out_dim, in_dim, batch, accumulate);
    const std::vector<double> ref = multi_token_matvec_ref(
        w, x, accumulate ? old : std::vector<float>{}, out_dim, in_dim, batch);
    double largest = 0;
    for (double r : ref) largest = std::max(largest, std::abs(r));
    expect_within(out, ref, std::vector<double>(ref.size(), relative_tolerance(in_dim) * largest),
                  accumulate ? "output +=" : "output =");
  }
}

// ------------------------------ trellis

TEST(Baselines, TrellisGemmWithinTheReferenceBound) {
  using namespace trellis;
  // Both baselines; every bit width; partial tiles, groups and decoded panels (K = 600, N = 72);
  // a grid cut short so that indices past it are clamped; M = 1 (decode) and more.
  const GemmShape shapes[] = {{1, 256, 72, 3, 128, 0},
                              {5, 256, 72, 3, 128, 0},
                              {3, 600, 72, 2, 64, 0},
                              {4, 600, 136, 4, 128, 11},
                              {1, 600, 72, 3, 32, 5}};
  uint64_t seed = 5;
  for (const GemmShape& shape : shapes) {
    const GemmProblem p = make_gemm_problem(shape, seed++);
    const Reference ref = gemm_ref(p.a, shape.M, p.weights);
    for (Decode decode : {Decode::on_the_fly, Decode::once}) {
      SCOPED_TRACE(testing::Message() << "M " << shape.M << " K " << shape.K << " N " << shape.N
                                      << " bits " << shape.bits << " n_levels " << shape.n_levels
                                      << (decode == Decode::once ? " once" : " on the fly"));
      GemmBaselineData d = prepare_gemm_baseline(p.a, shape.M, p.weights, decode);
      std::fill(d.c.begin(), d.c.end(), std::numeric_limits<float>::quiet_NaN());
      gemm_baseline(d);
      expect_within(d.c, ref.value, ref.bound, "C");
    }
  }
}

TEST(Baselines, TrellisMoeWithinTheReferenceBound) {
  using namespace trellis;
  const MoeProblem p = make_moe_problem(MoeShape{6, 64, 96, 4, 2, 4, 32}, 9);
  const Reference ref = moe_ref(p.x, p.routing, p.gate, p.up, p.down);
  for (Decode decode : {Decode::on_the_fly, Decode::once}) {
    MoeBaselineData d = prepare_moe_baseline(p, decode);
    std::fill(d.out.begin(), d.out.end(), std::numeric_limits<float>::quiet_NaN());
    moe_baseline(d);
    expect_within(d.out, ref.value, ref.bound, decode == Decode::once ? "out (once)" : "out");
  }
}

}  // namespace
}  // namespace metalsim::kernels
