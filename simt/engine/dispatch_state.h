#pragma once
// What the workers of one dispatch share (internal to the engine).
#include <atomic>
#include <cstdint>

#include "simt/abi/dispatch_request.h"
#include "simt/engine/kernel_log.h"
#include "simt/engine/lane_loops.h"
#include "simt/report/report.h"

namespace metalsim::checks::race {
class DispatchShadow;  // race_shadow.h
}

namespace metalsim::engine {

// A threadgroup's place in the grid: its threadgroup_position_in_grid and its actual size.
struct ThreadgroupPlace {
  Size3 position;
  Size3 size;
};

// Where each threadgroup of one dispatch is, as DispatchGeometry's threadgroup_position and
// threadgroup_size_at compute it, but without their three 64-bit divisions per threadgroup (about
// 20 ns each time on the 2-core machine's EPYC, and each threadgroup's start asked twice): none
// for a one-dimensional grid, two of 32 bits otherwise; and no edge arithmetic for a grid
// without partial threadgroups.
class ThreadgroupLocator {
 public:
  explicit ThreadgroupLocator(const abi::DispatchGeometry& g)
      : geometry_(g),
        one_dimensional_(g.threadgroups.y == 1 && g.threadgroups.z == 1),
        fits_32_bits_(g.threadgroups.volume() <= uint64_t(UINT32_MAX)),
        uniform_(g.threadgroups.x * uint64_t(g.threads_per_threadgroup.x) == g.threads.x &&
                 g.threadgroups.y * uint64_t(g.threads_per_threadgroup.y) == g.threads.y &&
                 g.threadgroups.z * uint64_t(g.threads_per_threadgroup.z) == g.threads.z) {}

  ThreadgroupPlace operator()(uint64_t linear) const {
    ThreadgroupPlace p;
    p.position = position(linear);
    p.size =
        uniform_ ? geometry_.threads_per_threadgroup : geometry_.threadgroup_size_at(p.position);
    return p;
  }

 private:
  Size3 position(uint64_t linear) const {
    if (one_dimensional_) return {uint32_t(linear), 0, 0};
    if (!fits_32_bits_) return geometry_.threadgroup_position(linear);
    const uint32_t l = uint32_t(linear), x = geometry_.threadgroups.x;
    const uint32_t y = geometry_.threadgroups.y, row = l / x;
    return {l - row * x, row % y, row / y};
  }

  const abi::DispatchGeometry& geometry_;
  const bool one_dimensional_;
  const bool fits_32_bits_;
  const bool uniform_;  // every threadgroup full: no partial threadgroup at an edge
};

struct DispatchState {
  explicit DispatchState(const abi::DispatchRequest& r)
      : request(r), serial(next_serial()), locate(r.geometry) {}
  const abi::DispatchRequest& request;
  const uint64_t serial;  // unique per dispatch: workers re-read the request when it changes
  const ThreadgroupLocator locate;
  const LaneLoopKernel* lane_loops = nullptr;  // set: the dispatch runs in lane loops
  // The code that runs: the kernel's entry (fibers) or its lane-loop step, of `variant`.
  abi::KernelEntry entry = nullptr;
  LaneStep step = nullptr;
  KernelVariant variant = KernelVariant::checked;
  checks::race::DispatchShadow* race = nullptr;  // set: the shadow racecheck is on
  report::ReportSink reports;
  KernelLog log;  // what the kernels logged (kernel_log.h)
  // A fault or the watchdog: skip the threadgroups not begun. Read by every worker before each
  // threadgroup, so on a line of its own: a write near it would make each of those reads a miss.
  alignas(64) std::atomic<bool> stop{false};
  // Racecheck: the host's writes happen before the dispatch's lanes; the lanes' writes happen
  // before the host reads the results (race_annotations.h).
  alignas(64) char start_token = 0;
  char finish_token = 0;

 private:
  static uint64_t next_serial() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }
};

}  // namespace metalsim::engine
