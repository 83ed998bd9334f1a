#pragma once
// The one loop that benchmarks a prepared case, for bench/kernels_bench.cpp and `metalsim bench`:
// the kernel emulated on fibers and in lane loops (automatic mode), the fast native baseline and,
// if asked, the checking reference and the checked variant. Each of them is timed in a block of
// its own: one untimed run, then the timed repetitions back to back, the outputs repoisoned before
// each kernel run. The untimed run absorbs its one-time costs (pipelines, fiber stacks, page
// faults of the outputs, a baseline's preparation) and what the block before left running: after
// an OpenMP baseline, libgomp's idle threads spin for a while, and on a 2-core machine that took
// CPU from the emulated run timed next (docs/performance.md, "OpenMP's idle threads"). The figures
// are medians: one slow run on a shared machine does not move them.
#include <chrono>
#include <cstddef>
#include <vector>

#include "kernels/spec/case_context.h"
#include "kernels/spec/spec.h"

namespace metalsim::spec {

template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// NaN for no times.
double median(std::vector<double> v);

struct BenchSettings {
  bool reference = true;  // time the reference too
  // Also time the checked variant with the context's checks (benchmarks run it with every check
  // off: what the access-check pass's instrumentation costs when no check uses it).
  bool checked_variant = false;
};

// Seconds, one per timed repetition.
struct BenchTimes {
  std::vector<double> fibers, loops, baseline, reference, fibers_checked, loops_checked;
  bool lane_loops = false;    // the automatic runs ran threadgroups in lane loops
  bool has_baseline = false;  // the spec has a fast native baseline
};

// The medians of BenchTimes; NaN where nothing was timed, and for lane loops where the
// automatic runs stayed on fibers.
struct BenchMedians {
  double fibers, loops, baseline, reference, fibers_checked, loops_checked;
};
BenchMedians medians(const BenchTimes& t);

// Times every block the settings ask for, each one untimed run and `repetitions` timed ones.
// `ctx` prepared `c`; the loop sets ctx's mode and checked variant.
BenchTimes time_case(CaseContext& ctx, PreparedCase& c, BenchSettings settings, size_t repetitions);

}  // namespace metalsim::spec
