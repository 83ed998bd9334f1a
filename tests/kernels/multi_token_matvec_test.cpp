// The multi-token mat-vec family (gpu-perf-phase3): both kernels against the Eigen reference
// over out_dim not a multiple of 8, batch 1, in_dim at block boundaries and threadgroups of 1 to
// 32 simdgroups, with every check on; each output element written (poisoned before); a token's
// output bit-identical alone or in a batch; the accumulate kernel adds to what was there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernels/multi_token_matvec/multi_token_matvec_ref.h"
#include "kernels/spec/compare.h"
#include "kernels/spec/inputs.h"
#include "support/host_harness.h"

namespace metalsim::kernels::multi_token_matvec {
namespace {

struct Shape {
  uint32_t out_dim, in_dim, batch, threads;
};

struct Problem {
  std::vector<BlockQ4_0> weight;
  std::vector<float> input, initial;
};

Problem make_problem(const Shape& s, uint64_t seed) {
  spec::InputGenerator gen(seed);
  Problem p;
  p.weight.resize(size_t(s.out_dim) * s.in_dim / 32);
  for (BlockQ4_0& b : p.weight) {
    b.d = _Float16(gen.uniform(-0.05, 0.05));
    for (uint8_t& q : b.qs) q = uint8_t(gen.next_u64());
  }
  p.input = gen.uniform_vector<float>(size_t(s.batch) * s.in_dim, -1, 1);
  p.initial = gen.uniform_vector<float>(size_t(s.batch) * s.out_dim, -1, 1);
  return p;
}

// Runs the kernel; the output starts as `initial` (accumulate) or poison; returns it.
std::vector<float> run(metalsim::testing::Harness& h, const char* kernel, const Shape& s,
                       const Problem& p, bool accumulate, std::string* reports) {
  auto w = h.buffer(p.weight), x = h.buffer(p.input);
  std::vector<float> start = p.initial;
  if (!accumulate) spec::poison(start.data(), start.size());
  auto out = h.buffer(start);
  const uint32_t groups = (s.out_dim + s.threads / 32 - 1) / (s.threads / 32);
  MTL::CommandBuffer* cb = h.run(
      kernel,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(w.get(), 0, 0);
        e->setBuffer(x.get(), 0, 1);
        e->setBuffer(out.get(), 0, 2);
        e->setBytes(&s.out_dim, 4, 3);
        e->setBytes(&s.in_dim, 4, 4);
        e->setBytes(&s.batch, 4, 5);
      },
      MTL::Size(groups, 1, 1), MTL::Size(s.threads, 1, 1));
  *reports = metalsim::testing::Harness::reports(cb);
  const float* o = static_cast<const float*>(out->contents());
  return {o, o + start.size()};
}

const Shape kSweep[] = {{1, 32, 1, 256},   {7, 32, 1, 256},     {8, 64, 1, 256},   {9, 64, 3, 256},
                        {17, 96, 4, 256},  {33, 32, 5, 256},    {15, 128, 9, 64},  {40, 544, 2, 32},
                        {3, 576, 7, 1024}, {64, 1536, 33, 256}, {100, 576, 8, 256}};

TEST(MultiTokenMatvec, BothKernelsMatchTheReferenceOverTheSweepWithChecksOn) {
  metalsim::testing::Harness h;
  for (const Shape& s : kSweep)
    for (bool accumulate : {false, true}) {
      const Problem p = make_problem(s, s.out_dim * 1000 + s.in_dim + s.batch);
      std::string reports;
      const auto got =
          run(h, accumulate ? "multi_token_matvec_q4_0_accumulate" : "multi_token_matvec_q4_0", s,
              p, accumulate, &reports);
      const auto ref =
          multi_token_matvec_ref(p.weight, p.input, accumulate ? p.initial : std::vector<float>{},
                                 s.out_dim, s.in_dim, s.batch);
      const std::string id = "out " + std::to_string(s.out_dim) + ", in " +
                             std::to_string(s.in_dim) + ", batch " + std::to_string(s.batch) +
                             ", tg " + std::to_string(s.threads) +
                             (accumulate ? ", accumulate" : "");
      EXPECT_EQ(reports, "") << id;
      spec::CaseResult r;
      spec::compare_output("output", got.data(), ref.data(), got.size(),
                           {0, relative_tolerance(s.in_dim), ""}, r);
      EXPECT_EQ(r.unwritten, 0u) << id << ": " << r.worst;
      EXPECT_EQ(r.non_finite, 0u) << id << ": " << r.worst;
      EXPECT_LE(r.max_error, 1.0) << id << ": " << r.worst;
    }
}

// An output that cancels (old + sum w x near 0) is held to its terms' magnitudes, not to its own
// size: the fuzz campaign's case (one output, in_dim 32, seed 318337) was 1.45x the bound of
// max |ref|, a rounding error of the float add to an old value of magnitude 1. A planted error of
// one term's size still fails by far.
TEST(MultiTokenMatvec, ACancellingOutputIsBoundedByItsTermsMagnitudes) {
  const spec::Tolerance tol{0, relative_tolerance(32), ""};
  const std::vector<double> ref{-0.0136940};
  const std::vector<double> magnitude{1.37};
  const float rounded = float(ref[0]) + 7.5e-8f;  // about one float ulp of the old value
  spec::CaseResult by_output, by_terms, planted;
  spec::compare_output("output", &rounded, ref.data(), 1, tol, by_output);
  EXPECT_GT(by_output.max_error, 1.0) << "max |ref| alone was expected to reject it";
  spec::compare_output_of_sums("output", &rounded, ref.data(), magnitude, 1, tol, by_terms);
  EXPECT_LE(by_terms.max_error, 1.0) << by_terms.worst;
  const float wrong = float(ref[0]) + 0.01f;
  spec::compare_output_of_sums("output", &wrong, ref.data(), magnitude, 1, tol, planted);
  EXPECT_GT(planted.max_error, 100.0) << planted.worst;
}

TEST(MultiTokenMatvec, ATokensOutputIsBitIdenticalAloneOrInABatch) {
  metalsim::testing::Harness h;
  const Shape batched{45, 576, 11, 256};
  const Problem p = make_problem(batched, 5);
  std::string reports;
  const auto all = run(h, "multi_token_matvec_q4_0", batched, p, false, &reports);
  for (uint32_t t = 0; t < batched.batch; ++t) {
    Problem one = p;
    one.input.assign(p.input.begin() + t * batched.in_dim,
                     p.input.begin() + (t + 1) * batched.in_dim);
    const auto alone = run(h, "multi_token_matvec_q4_0", {45, 576, 1, 256}, one, false, &reports);
    EXPECT_EQ(std::memcmp(alone.data(), all.data() + t * 45, 45 * sizeof(float)), 0)
        << "token " << t;
  }
}

}  // namespace
}  // namespace metalsim::kernels::multi_token_matvec
