// Hoisted range tests end to end (docs/checks.md, "Range tests hoisted out of loops"): a loop
// whose span ends exactly at an odd-sized buffer's end runs without a report and sums what a
// scalar model sums, and the same loop one float longer is reported at the buffer's end, for
// every start of two buffers (45 floats, and 245: spans of 1 to 62 granules, the inline test's
// one masked word to its eight overlapping ones), in both execution modes. The
// read past the end lies in the buffer's last granule, before its guard page: only the access
// shadow sees it, so a hoisted test that passed a range it should not have would hide it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/attention/attention_inputs.h"
#include "kernels/spec/inputs.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

constexpr uint32_t kCount = 45;  // floats: 180 bytes, the last granule's first 4 valid
// Floats: 980 bytes, the last granule's first 4 valid; a span of up to 62 granules, the most the
// inline test reads (eight words of shadow, shadow_span.h).
constexpr uint32_t kLongCount = 245;

struct Span {
  uint32_t start, length;
};

// The kernel's sum, in its order (the kernels compile without reassociation).
float model_sum(const std::vector<float>& in, Span s, bool down) {
  float sum = 0.0f;
  for (uint32_t k = 0; k < s.length; ++k) sum += in[s.start + (down ? s.length - 1 - k : k)];
  return sum;
}

class HoistedRange : public ::testing::TestWithParam<std::tuple<const char*, ExecutionMode>> {
 protected:
  // Runs the kernel over `s` on a fresh copy of `in`, one threadgroup of `threads`; the
  // command buffer, and in `out_value` what the kernel wrote over the poison.
  template <class T>
  MTL::CommandBuffer* run(Harness& h, Span s, const std::vector<T>& in, T& out_value,
                          uint32_t threads = 1) {
    auto a = h.buffer(in.size() * sizeof(T));
    std::memcpy(a->contents(), in.data(), in.size() * sizeof(T));
    auto out = h.buffer(std::vector<T>{T(0xDEAD)});  // poison
    const uint32_t span[2] = {s.start, s.length};
    MTL::CommandBuffer* cb = h.run(std::get<0>(GetParam()),
                                   [&](MTL::ComputeCommandEncoder* e) {
                                     e->setBuffer(a.get(), 0, 0);
                                     e->setBuffer(out.get(), 0, 1);
                                     e->setBytes(span, sizeof span, 2);
                                   },
                                   {1, 1, 1}, {threads, 1, 1});
    out_value = *static_cast<const T*>(out->contents());
    return cb;
  }
};

TEST_P(HoistedRange, EndsAtTheBufferEndOrIsReportedThere) {
  Harness h;
  h.options().mode = std::get<1>(GetParam());
  const bool down = std::string(std::get<0>(GetParam())) == "range_sum_down";
  for (const uint32_t count : {kCount, kLongCount}) {
    const std::vector<float> in = spec::InputGenerator(2611).uniform_vector<float>(count, -2, 2);
    for (uint32_t start = 0; start < count; ++start) {
      const Span inside{start, count - start};
      float value = 0.0f;
      MTL::CommandBuffer* cb = run(h, inside, in, value);
      ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted)
          << "count " << count << " start " << start << "\n"
          << Harness::reports(cb);
      EXPECT_EQ(value, model_sum(in, inside, down)) << "count " << count << " start " << start;

      const Span past{start, count - start + 1};
      cb = run(h, past, in, value);
      ASSERT_EQ(Harness::count(cb, report::CheckId::bounds_device), 1u)
          << "count " << count << " start " << start << " length " << past.length << "\n"
          << Harness::reports(cb);
      const report::Report& r = cb->reports().front();
      EXPECT_EQ(r.offset, int64_t(count) * 4) << r.format();
    }
  }
}

std::string name(const ::testing::TestParamInfo<HoistedRange::ParamType>& info) {
  return std::string(std::get<0>(info.param)) + "_" +
         std::string(execution_mode_name(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, HoistedRange,
    ::testing::Combine(::testing::Values("range_sum_ulong", "range_sum_uint", "range_sum_down"),
                       ::testing::Values(ExecutionMode::fibers, ExecutionMode::loops)),
    name);

// A lane loop's range test (docs/checks.md): one simdgroup's lanes stride through a span of
// uints that ends at an odd-sized buffer's end, or one uint past it. Every start: the sum is the
// scalar model's (integers: exact in any order) and nothing is reported; one uint longer, the one
// lane that reads past the end is reported there, with its lane and the kernel's line.
class LaneStridedRange : public HoistedRange {};

TEST_P(LaneStridedRange, EndsAtTheBufferEndOrIsReportedThere) {
  Harness h;
  h.options().mode = std::get<1>(GetParam());
  const std::vector<uint32_t> in =
      spec::InputGenerator(2612).uniform_vector<uint32_t>(kCount, 0, 1000);
  for (uint32_t start = 0; start < kCount; ++start) {
    uint32_t value = 0;
    MTL::CommandBuffer* cb = run(h, {start, kCount - start}, in, value, 32);
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << "start " << start << "\n"
                                                               << Harness::reports(cb);
    uint32_t model = 0;
    for (uint32_t i = start; i < kCount; ++i) model += in[i];
    EXPECT_EQ(value, model) << "start " << start;

    const uint32_t past = kCount - start + 1;
    cb = run(h, {start, past}, in, value, 32);
    ASSERT_EQ(Harness::count(cb, report::CheckId::bounds_device), 1u)
        << "start " << start << " length " << past << "\n"
        << Harness::reports(cb);
    const report::Report& r = cb->reports().front();
    EXPECT_EQ(r.offset, int64_t(kCount) * 4) << r.format();
    EXPECT_GT(r.site.line, 0u) << r.format();
    if (r.thread_known) {
      EXPECT_EQ(r.lane.simd_lane, (past - 1) % 32) << r.format();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, LaneStridedRange,
    ::testing::Combine(::testing::Values("lane_strided_sum", "lane_strided_halves",
                                         "lane_rounds_sum"),
                       ::testing::Values(ExecutionMode::fibers, ExecutionMode::loops)),
    name);

// Decode attention's value loop (attention.metal, decode_attention): simdgroup s takes the keys
// 32 s + 128 i; when the simdgroups' chunks differ each lane runs a chunk's keys after the first
// in its own loop, and the lane loop's range test bounds those loops once, from the lanes' slots
// (the chunk's start, the keys done, a count that is an unsigned minimum; docs/checks.md). A value
// cache four halves short of kv_len rows is reported at its end, in both modes, whichever
// simdgroup holds the last key and whether the others' chunks are full (kv_len 100, 229, 250: the
// last simdgroup's partial chunk beside three full ones; 150: the first simdgroup's, alone). The
// reads past the end lie in the cache's last granule, before its guard page: only the access
// checks see them, so a range test that passed a range it should not have would hide them. The
// whole cache runs without a report and writes every output.
class DecodeValueCache : public ::testing::TestWithParam<ExecutionMode> {};

TEST_P(DecodeValueCache, OneKeyShortIsReportedAtItsEnd) {
  using half = _Float16;
  Harness h;
  h.options().mode = GetParam();
  constexpr uint32_t kDim = 64;
  for (const uint32_t kv_len : {100u, 229u, 250u, 150u}) {
    spec::InputGenerator gen(2614 + kv_len);
    auto halves = [&](size_t n) {
      std::vector<half> v;
      for (const float f : gen.uniform_vector<float>(n, -1.0f, 1.0f)) v.push_back(half(f));
      return v;
    };
    const std::vector<half> q = halves(kDim), k = halves(size_t(kv_len) * kDim),
                            v = halves(size_t(kv_len) * kDim);
    kernels::attention::DecodeParams p{};
    p.q_strides[0] = p.q_strides[1] = p.o_strides[0] = p.o_strides[1] = kDim;
    p.k_strides[0] = p.k_strides[1] = p.v_strides[0] = p.v_strides[1] = uint64_t(kv_len) * kDim;
    p.k_strides[2] = p.v_strides[2] = kDim;
    p.num_heads = p.num_kv_heads = 1;
    p.kv_len = kv_len;
    p.head_dim = kDim;
    p.scale = 0.125f;
    constexpr uint32_t kShort = 4;  // halves missing at the cache's end
    for (const bool short_cache : {false, true}) {
      auto qb = h.buffer(q), kb = h.buffer(k);
      auto vb = h.buffer(std::vector<half>(v.begin(), v.end() - (short_cache ? kShort : 0)));
      auto ob = h.buffer(std::vector<half>(kDim, half(NAN)));  // poison
      MTL::CommandBuffer* cb = h.run("decode_attention",
                                     [&](MTL::ComputeCommandEncoder* e) {
                                       e->setBuffer(qb.get(), 0, 0);
                                       e->setBuffer(kb.get(), 0, 1);
                                       e->setBuffer(vb.get(), 0, 2);
                                       e->setBuffer(ob.get(), 0, 3);
                                       e->setBytes(&p, sizeof p, 4);
                                     },
                                     {1, 1, 1}, {128, 1, 1});
      if (!short_cache) {
        ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << "kv_len " << kv_len << "\n"
                                                                   << Harness::reports(cb);
        const auto* o = static_cast<const half*>(ob->contents());
        for (uint32_t d = 0; d < kDim; ++d)
          EXPECT_TRUE(std::isfinite(float(o[d]))) << "kv_len " << kv_len << " output " << d;
        continue;
      }
      ASSERT_GE(Harness::count(cb, report::CheckId::bounds_device), 1u)
          << "kv_len " << kv_len << "\n"
          << Harness::reports(cb);
      const int64_t end = (int64_t(kv_len) * kDim - kShort) * 2;
      for (const report::Report& r : cb->reports()) {
        ASSERT_EQ(r.check, report::CheckId::bounds_device) << r.format();
        EXPECT_EQ(r.memory.rfind("buffer(2)", 0), 0u) << r.format();
        EXPECT_GE(r.offset, end) << r.format();
        EXPECT_LT(r.offset, end + int64_t(kShort) * 2) << r.format();
        EXPECT_GT(r.site.line, 0u) << r.format();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, DecodeValueCache,
                         ::testing::Values(ExecutionMode::fibers, ExecutionMode::loops),
                         [](const ::testing::TestParamInfo<ExecutionMode>& mode) {
                           return std::string(execution_mode_name(mode.param));
                         });

#ifdef METALSIM_RANGE_IR
// The checked variant of each range kernel (its fibers' entry and its lane-loop step: the
// functions whose name holds the kernel's and not ".fast") from hoisted_ranges.ll.
std::vector<std::string> checked_functions(const std::string& kernel) {
  std::ifstream in(METALSIM_RANGE_IR);
  std::vector<std::string> functions;
  std::string line, body;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.rfind("define ", 0) == 0 && line.find(kernel) != std::string::npos &&
        line.find(".fast") == std::string::npos) {
      inside = true;
      body.clear();
    }
    if (inside) body += line + "\n";
    if (inside && line == "}") {
      functions.push_back(body);
      inside = false;
    }
  }
  return functions;
}

// The blocks of `function` whose label holds ".unchecked" (copy_loops_without_tests' suffix), and
// whether any of them calls the engine's access test.
struct Copies {
  int blocks = 0;
  bool call_the_engine = false;
};

Copies copies_in(const std::string& function) {
  Copies c;
  std::istringstream in(function);
  bool in_copy = false;
  for (std::string line; std::getline(in, line);) {
    const bool label = !line.empty() && line[0] != ' ' && line.back() != '{' &&
                       line.find(':') != std::string::npos && line != "}";
    if (label) {
      in_copy = line.substr(0, line.find(':')).find(".unchecked") != std::string::npos;
      c.blocks += in_copy ? 1 : 0;
    }
    if (in_copy && line.find("@__metalsim_access") != std::string::npos) c.call_the_engine = true;
  }
  return c;
}

// Each range kernel's loop has every access's test hoisted before it, so the checked variant has
// a copy of it that tests nothing (docs/checks.md, "A copy without tests"), in the fibers' entry
// and in the lane-loop step; the tests above run both copies, and the tested loops beside them.
TEST(LoopCopies, EachRangeKernelHasACopyWithoutTests) {
  for (const char* kernel : {"range_sum_ulong", "range_sum_uint", "range_sum_down"}) {
    const std::vector<std::string> functions = checked_functions(kernel);
    ASSERT_GE(functions.size(), 2u) << kernel << ": no entry and step in " << METALSIM_RANGE_IR;
    for (const std::string& f : functions) {
      const Copies c = copies_in(f);
      const std::string head = f.substr(0, f.find('\n'));
      EXPECT_GT(c.blocks, 0) << kernel << ": no copied loop in\n" << head;
      EXPECT_FALSE(c.call_the_engine) << kernel << ": a copy tests its accesses in\n" << head;
    }
  }
}

// The lane-strided kernels' lane loops, whose per-lane loops run a different number of times in
// each lane, have a test bounded over the lanes and a copy without tests in the lane-loop step.
TEST(LoopCopies, EachLaneStridedStepHasACopyOfItsLaneLoop) {
  for (const char* kernel : {"lane_strided_sum", "lane_strided_halves"}) {
    int steps = 0;
    for (const std::string& f : checked_functions(kernel)) {
      const std::string head = f.substr(0, f.find('\n'));
      if (head.find(".lanes.step") == std::string::npos) continue;
      ++steps;
      const Copies c = copies_in(f);
      // The lane loop's latch ("rN.lanes.latch", the step's region N) in the copy.
      EXPECT_NE(f.find(".lanes.latch.unchecked:"), std::string::npos)
          << kernel << ": no copy of the lane loop in\n"
          << head;
      EXPECT_FALSE(c.call_the_engine) << kernel << ": a copy tests its accesses in\n" << head;
    }
    EXPECT_EQ(steps, 1) << kernel << ": no lane-loop step in " << METALSIM_RANGE_IR;
  }
}
#endif

}  // namespace
}  // namespace metalsim::testing
