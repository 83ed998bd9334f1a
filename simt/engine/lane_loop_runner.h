#pragma once
// Runs one threadgroup of a kernel compiled into lane loops (lane_loops.h, docs/lanes.md): the
// step runs groups of lanes from a continuation to their next sync point; between steps the
// runner resolves sync points with exactly the fiber engine's rules (docs/architecture.md,
// "Resolution rules"):
//  - every live lane is stopped after each round of steps, so each simdgroup whose lanes stopped
//    at simd functions resolves them per call site (the active mask: the lanes stopped at that
//    site), with the same CombineFn and the members sorted by simd lane, as fibers do;
//    simdgroup_matrix operations reached by fewer than all live lanes report simd.partial;
//  - when every live lane waits at a threadgroup barrier: one call site, released (after
//    barrier.exited when some lanes had returned); several, barrier.divergent, abandoned.
// Lanes run in lane order; the schedule policies of fibers do not apply.
#include <cstdint>
#include <memory>
#include <source_location>
#include <span>
#include <vector>

#include "simt/engine/geometry.h"
#include "simt/engine/kernel.h"
#include "simt/engine/lane_loops.h"
#include "simt/engine/threadgroup_arena.h"
#include "simt/report/report.h"

namespace metalsim::engine {

// What every threadgroup of one dispatch shares; read only while workers run.
struct LaneLoopDispatch {
  const LaneLoopKernel* kernel = nullptr;
  const char* kernel_name = "";
  const DispatchGeometry* geometry = nullptr;
  BoundArgs args;  // buffers bound; the threadgroup pointers are set per threadgroup
  std::span<const void* const> function_constants;  // by [[function_constant(N)]] index
  bool sync_check = true;                           // barrier.exited and simd.partial are reported
  bool poison_threadgroup = false;  // fill threadgroup memory at each threadgroup's start
  uint8_t poison_byte = kThreadgroupPoisonByte;
  check::ReportSink* reports = nullptr;
};

class LaneLoopRunner {
 public:
  // `arena`: this worker's threadgroup memory, configured for the dispatch by the caller.
  explicit LaneLoopRunner(ThreadgroupArena& arena);
  ~LaneLoopRunner();
  LaneLoopRunner(const LaneLoopRunner&) = delete;
  LaneLoopRunner& operator=(const LaneLoopRunner&) = delete;

  // Runs threadgroup `linear_threadgroup` to its end. false: abandoned, and reported.
  bool run(const LaneLoopDispatch& dispatch, uint64_t linear_threadgroup);

 private:
  enum class Status : uint8_t { Ready, Stopped, Done };

  void prepare(const LaneLoopDispatch& dispatch, uint64_t linear_threadgroup);
  void prepare_local_positions();
  void prepare_frame();
  bool allocate_threadgroup_variables();
  void run_ready();
  void step(uint32_t cont, uint32_t first, uint32_t count, const uint16_t* lanes);
  bool release_simd_stops();
  void resolve_simdgroup(uint32_t simdgroup, bool& released);
  bool release_barrier();
  void report_divergent_barrier();
  void report_barrier_after_exit();
  void report_kernel_exception(uint32_t lane, const char* what);
  void release(uint32_t lane);
  check::Report lane_report(check::CheckId id, uint32_t lane,
                            const std::source_location* site) const;

  ThreadgroupArena& arena_;
  const LaneLoopDispatch* dispatch_ = nullptr;
  BoundArgs args_;
  LaneLoopState state_;
  uint32_t n_ = 0;     // lanes in this threadgroup
  uint32_t live_ = 0;  // lanes not done
  uint32_t ready_count_ = 0;

  // By lane.
  std::vector<Status> status_;
  std::vector<uint32_t> cont_;  // where a ready lane resumes
  std::vector<uint32_t> stop_;
  std::vector<uint8_t> kind_;
  std::vector<std::source_location> site_;
  std::vector<CombineFn> combine_;
  std::vector<const void*> in_;
  std::vector<void*> out_;
  std::vector<uint64_t> arg_;
  std::vector<uint16_t> local_x_, local_y_, local_z_;
  Size3 local_size_{0, 0, 0};
  std::vector<uint16_t> scratch_lanes_;
  std::vector<void*> threadgroup_variables_;

  struct FreeFrame {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, FreeFrame> frame_;
  size_t frame_capacity_ = 0;
};

}  // namespace metalsim::engine
