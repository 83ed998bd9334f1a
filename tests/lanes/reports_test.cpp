// What the resolution rules report reads the same in lane loops as on fibers: a barrier in a
// branch that depends on the lane (barrier.divergent, both call sites, the threadgroup
// abandoned), a barrier after some lanes returned (barrier.exited, a warning: released, and the
// dispatch completes unless strict). And a kernel
// the pass cannot transform says why, naming its file and line, and still runs on fibers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

#include "lanes/mode_runner.h"
#include "lanes/test_kernel.h"
#include "simt/engine/dispatch.h"
#include "simt/engine/lane_loops.h"

namespace metalsim::lanes_test {
namespace {

// The line of `file` (under tests/lanes/kernels) that carries the comment "// line: <marker>".
uint32_t marked_line(const std::string& file, const std::string& marker) {
  std::ifstream in(std::string(LANES_KERNEL_DIR) + "/" + file);
  std::string text;
  for (uint32_t line = 1; std::getline(in, text); ++line)
    if (text.find("// line: " + marker) != std::string::npos) return line;
  ADD_FAILURE() << "no marker '" << marker << "' in " << file;
  return 0;
}

Launch one_threadgroup(const char* kernel, uint32_t threads) {
  Launch l;
  l.kernel = kernel;
  l.geometry = abi::DispatchGeometry::for_threadgroups({2, 1, 1}, {threads, 1, 1});
  l.buffers = {Bytes(2 * threads * 4, std::byte{0xFF})};
  l.threadgroup_lengths = {threads * 4};
  return l;
}

const report::Report* find(const Outcome& o, report::CheckId id) {
  for (const report::Report& r : o.reports)
    if (r.check == id) return &r;
  return nullptr;
}

// The same report, field by field (folded repeats aside: both modes fold the same way).
void expect_same_report(const report::Report& fibers, const report::Report& loops) {
  EXPECT_EQ(fibers.check, loops.check);
  EXPECT_EQ(fibers.kernel, loops.kernel);
  EXPECT_EQ(fibers.message, loops.message);
  EXPECT_EQ(fibers.site.str(), loops.site.str());
  EXPECT_EQ(fibers.other_site.str(), loops.other_site.str());
  EXPECT_EQ(fibers.other_lanes, loops.other_lanes);
  EXPECT_EQ(fibers.lane.threadgroup, loops.lane.threadgroup);
  EXPECT_EQ(fibers.lane.thread, loops.lane.thread);
  EXPECT_EQ(fibers.repeats, loops.repeats);
}

TEST(LaneLoopReports, BarrierInALaneDependentBranchIsDivergentAsOnFibers) {
  const Launch launch = one_threadgroup("divergent_barrier", 64);
  const Outcome fibers = run_on_fibers(launch);
  const Outcome loops = run_in_lane_loops(launch);
  const report::Report* f = find(fibers, report::CheckId::barrier_divergent);
  const report::Report* l = find(loops, report::CheckId::barrier_divergent);
  ASSERT_NE(f, nullptr);
  ASSERT_NE(l, nullptr) << (loops.reports.empty() ? "no report" : loops.reports[0].format());
  expect_same_report(*f, *l);
  const std::set<uint32_t> lines{l->site.line, l->other_site.line};
  EXPECT_EQ(lines, (std::set<uint32_t>{marked_line("report_kernels.cpp", "divergent low"),
                                       marked_line("report_kernels.cpp", "divergent high")}))
      << l->format();
  EXPECT_EQ(l->other_lanes, "lanes 40..63") << l->format();
  // Abandoned at the barrier: no lane wrote its output, in either mode.
  EXPECT_EQ(fibers.buffers[0], loops.buffers[0]);
  EXPECT_EQ(loops.buffers[0], Bytes(loops.buffers[0].size(), std::byte{0xFF}));
}

TEST(LaneLoopReports, BarrierAfterAnEarlyReturnIsAWarningThenReleasedAsOnFibers) {
  const Launch launch = one_threadgroup("barrier_after_return", 64);
  const Outcome fibers = run_on_fibers(launch);
  const Outcome loops = run_in_lane_loops(launch);
  const report::Report* f = find(fibers, report::CheckId::barrier_exited);
  const report::Report* l = find(loops, report::CheckId::barrier_exited);
  ASSERT_NE(f, nullptr);
  ASSERT_NE(l, nullptr) << (loops.reports.empty() ? "no report" : loops.reports[0].format());
  expect_same_report(*f, *l);
  // A warning: the dispatch completes in both modes, the one report (per barrier) kept.
  EXPECT_EQ(l->severity(), report::Severity::warning);
  EXPECT_TRUE(fibers.ok);
  EXPECT_TRUE(loops.ok);
  EXPECT_EQ(fibers.reports.size(), 1u);
  EXPECT_EQ(loops.reports.size(), 1u);
  EXPECT_EQ(l->site.line, marked_line("report_kernels.cpp", "exited"));
  EXPECT_EQ(l->other_lanes, "returned threads: lanes 50..63");
  EXPECT_EQ(fibers.buffers[0], loops.buffers[0]);
  const std::vector<uint32_t> out = values_of<uint32_t>(loops.buffers[0]);
  for (uint32_t g = 0; g < 2; ++g)
    for (uint32_t i = 0; i < 64; ++i)
      EXPECT_EQ(out[g * 64 + i], i < 50 ? ((i + 1) % 50) * 3 + 1 : 0xFFFFFFFFu)
          << "threadgroup " << g << " lane " << i;
}

TEST(LaneLoopReports, StrictFailsTheDispatchAtTheWarningInBothModes) {
  Launch launch = one_threadgroup("barrier_after_return", 64);
  launch.strict = true;
  const Outcome fibers = run_on_fibers(launch);
  const Outcome loops = run_in_lane_loops(launch);
  EXPECT_FALSE(fibers.ok);
  EXPECT_FALSE(loops.ok);
  EXPECT_NE(find(fibers, report::CheckId::barrier_exited), nullptr);
  EXPECT_NE(find(loops, report::CheckId::barrier_exited), nullptr);
  // The threadgroups still ran to their end: strict judges, it does not stop the lanes.
  EXPECT_EQ(fibers.buffers[0], loops.buffers[0]);
}

TEST(LaneLoopReports, SyncCheckOffStillReleasesAndStillAbandonsDivergence) {
  Launch exited = one_threadgroup("barrier_after_return", 64);
  exited.sync_check = false;
  EXPECT_TRUE(run_in_lane_loops(exited).reports.empty());
  EXPECT_TRUE(run_on_fibers(exited).reports.empty());
  Launch divergent = one_threadgroup("divergent_barrier", 64);
  divergent.sync_check = false;
  EXPECT_NE(find(run_in_lane_loops(divergent), report::CheckId::barrier_divergent), nullptr);
}

TEST(LaneLoopReports, AKernelThatThrowsIsReportedAsOnFibers) {
  // In the tsan preset the fibers' abandoned lanes never synchronise with the host, and
  // ThreadSanitizer reports their writes and the exception's string as races (an engine
  // matter, not the lane loops').
  if (engine::racecheck_available())
    GTEST_SKIP() << "fibers after a kernel exception under racecheck";
  Launch l = one_threadgroup("cleanup_across_barrier", 64);
  std::vector<float> in(2 * 64, 1.0f);
  in[64 + 17] = std::nanf("");
  l.buffers = {bytes_of(in), Bytes(2 * 64 * 4, std::byte{0xFF})};
  const Outcome fibers = run_on_fibers(l);
  const Outcome loops = run_in_lane_loops(l);
  const report::Report* f = find(fibers, report::CheckId::kernel_exception);
  const report::Report* r = find(loops, report::CheckId::kernel_exception);
  ASSERT_NE(f, nullptr);
  ASSERT_NE(r, nullptr) << (loops.reports.empty() ? "no report" : loops.reports[0].format());
  EXPECT_EQ(f->message, "the kernel threw: a NaN input");
  EXPECT_EQ(r->message, f->message);
  EXPECT_EQ(r->lane.threadgroup, f->lane.threadgroup);
  // Threadgroup 0 had no NaN: it ran to the end in both modes, alike.
  for (size_t i = 0; i < 64 * 4; ++i)
    ASSERT_EQ(loops.buffers[1][i], fibers.buffers[1][i]) << "byte " << i;
}

TEST(LaneLoopReports, AFaultInALaterThreadgroupOfAShareNamesItAndStopsTheRest) {
  // One worker runs the dispatch's 6 threadgroups one after another on one fiber; threadgroup 3
  // faults. As on fibers: the fault names threadgroup 3 and the line; 0 to 2 wrote their slots;
  // 4 and 5 were skipped.
  if (engine::racecheck_available()) GTEST_SKIP() << "a fault ends the process under tsan";
  Launch l;
  l.kernel = "fault_in_one_group";
  l.geometry = abi::DispatchGeometry::for_threadgroups({6, 1, 1}, {32, 1, 1});
  l.buffers = {Bytes(6 * 32 * 4, std::byte{0xFF}), bytes_of(std::vector<uint32_t>{3})};
  for (const Outcome& o : {run_on_fibers(l), run_in_lane_loops(l)}) {
    const report::Report* r = find(o, report::CheckId::kernel_fault);
    ASSERT_NE(r, nullptr) << (o.reports.empty() ? "no report" : o.reports[0].format());
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(r->lane.threadgroup.x, 3u) << r->format();
    // Lane loops know the thread when the step ran one lane (else the lanes that were running).
    if (r->thread_known) {
      EXPECT_EQ(r->lane.thread.x, 3u) << r->format();
    }
    EXPECT_EQ(r->site.line, marked_line("report_kernels.cpp", "null store")) << r->format();
    for (uint32_t gid = 0; gid < 6 * 32; ++gid) {
      uint32_t v;
      std::memcpy(&v, &o.buffers[0][gid * 4], 4);
      if (gid < 3 * 32) {
        EXPECT_EQ(v, gid + 1) << "slot " << gid;
      } else if (gid >= 4 * 32) {
        EXPECT_EQ(v, 0xFFFFFFFFu) << "slot " << gid << " ran";
      }
    }
  }
}

TEST(LaneLoopReports, AKernelWithoutSyncPointsIsRegisteredAsSuch) {
  // The runner then runs its lanes in one step, without recording where each stopped
  // (kLaneStepHasNoSyncPoints); a barrier is a sync point (so is a loop's yield, which the -O0
  // build of these kernels does not make).
  auto registered = [](const char* kernel) {
    const char* why = nullptr;
    const engine::LaneLoopKernel* k = engine::find_lane_loop_kernel(test_kernel(kernel).body, &why);
    EXPECT_NE(k, nullptr) << kernel << ": " << (why != nullptr ? why : "");
    return k;
  };
  if (const auto* k = registered("fault_in_one_group")) {
    EXPECT_TRUE(k->has_no_sync_points);
  }
  if (const auto* k = registered("divergent_barrier")) {
    EXPECT_FALSE(k->has_no_sync_points);
  }
}

struct Untransformable {
  const char* kernel;
  const char* marker;
  const char* why;
};

TEST(LaneLoopReports, UntransformableKernelsSayWhyWithFileAndLine) {
  for (const Untransformable& u :
       {Untransformable{"indirect_call", "indirect", "an indirect call may reach a sync point"},
        Untransformable{"recursive_barrier", "recursive", "a recursive call"},
        Untransformable{"external_call", "external", "defined in another file"}}) {
    const std::string why = why_not_lane_loops(u.kernel);
    const std::string where = "untransformable_kernels.cpp:" +
                              std::to_string(marked_line("untransformable_kernels.cpp", u.marker)) +
                              ": ";
    EXPECT_NE(why.find(where), std::string::npos) << u.kernel << ": " << why;
    EXPECT_NE(why.find(u.why), std::string::npos) << u.kernel << ": " << why;
    Launch l;
    l.kernel = u.kernel;
    l.geometry = abi::DispatchGeometry::for_threadgroups({1, 1, 1}, {64, 1, 1});
    l.buffers = {bytes_of(std::vector<uint32_t>{3}), Bytes(64 * 4, std::byte{0xFF})};
    if (std::string(u.kernel) == "external_call") l.buffers.erase(l.buffers.begin());
    EXPECT_THROW(run_in_lane_loops(l), std::runtime_error) << u.kernel;
    const Outcome fibers = run_on_fibers(l);
    EXPECT_TRUE(fibers.reports.empty()) << u.kernel << ": " << fibers.reports[0].format();
  }
}

// too_large, worked out here: 160 stretches, each a weighted sum of 16 lanes' values.
std::vector<float> too_large_reference(uint32_t groups, uint32_t threads) {
  std::vector<float> out;
  for (uint32_t g = 0; g < groups; ++g) {
    std::vector<float> v(threads);
    for (uint32_t t = 0; t < threads; ++t) v[t] = float(t);
    for (uint32_t n = 160; n > 0; --n) {
      const std::vector<float> shared = v;
      for (uint32_t t = 0; t < threads; ++t) {
        float sum = 0.0f;
        for (uint32_t j = 0; j < 16; ++j) sum += shared[(t + j * n) % threads] * float(j + 1);
        v[t] = v[t] * 0.5f + sum * (1.0f / 272.0f);
      }
    }
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

TEST(LaneLoopReports, AKernelTooLargeForLaneLoopsRunsOnFibersAndSaysWhy) {
  const std::string why = why_not_lane_loops("too_large");
  EXPECT_NE(why.find("its lane loops would be too large to compile"), std::string::npos) << why;
  const Launch l = one_threadgroup("too_large", 64);
  EXPECT_THROW(run_in_lane_loops(l), std::runtime_error);
  const Outcome fibers = run_on_fibers(l);
  ASSERT_TRUE(fibers.ok);
  EXPECT_TRUE(fibers.reports.empty()) << fibers.reports[0].format();
  const std::vector<float> expected = too_large_reference(2, 64);
  ASSERT_EQ(fibers.buffers[0].size(), expected.size() * 4);
  for (size_t i = 0; i < expected.size(); ++i) {
    float got = 0.0f;
    std::memcpy(&got, fibers.buffers[0].data() + i * 4, 4);
    EXPECT_NEAR(got, expected[i], 1e-4f * std::max(1.0f, std::fabs(expected[i]))) << "lane " << i;
  }
}

TEST(LaneLoopReports, EveryTransformableKernelHasAStep) {
  for (const char* k :
       {"rotate", "barrier_in_loop", "barrier_in_loop_constant", "uniform_branch", "tree_reduce",
        "tree_reduce_static", "cleanup_across_barrier", "private_array", "atomic_histogram",
        "scale", "simd_functions", "simd_shuffle_loop", "simd_active_mask", "simd_after_return",
        "half_math", "axpy_exchange", "divergent_barrier", "barrier_after_return"})
    EXPECT_EQ(why_not_lane_loops(k), "") << k;
}

}  // namespace
}  // namespace metalsim::lanes_test
