#pragma once
// Runs the threadgroups of a kernel compiled into lane loops (lane_loops.h, docs/lanes.md): the
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
//
// A worker's share of a dispatch runs on one guarded stack of its pool, under the same fault trap
// as fibers: a memory fault or the watchdog jumps back here, is reported as on fibers
// (fault_report.h) and stops the dispatch. A step runs many lanes at once, so a fault names
// the threadgroup and the .metal line; the thread only when one lane was running.
#include <csetjmp>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <vector>

#include "simt/abi/geometry.h"
#include "simt/abi/kernel.h"
#include "simt/engine/lane_loops.h"
#include "simt/engine/threadgroup_arena.h"
#include "simt/fiber/fiber.h"
#include "simt/report/report.h"

namespace metalsim::fault {
class FaultTrap;
}

namespace metalsim::engine {

struct DispatchState;     // dispatch_state.h: the request, its reports, its stop flag
struct ThreadgroupPlace;  // dispatch_state.h

class LaneLoopRunner {
 public:
  // `stacks`, `arena`: this worker's, configured for the dispatch by the caller.
  LaneLoopRunner(fiber::StackPool& stacks, ThreadgroupArena& arena);
  ~LaneLoopRunner();
  LaneLoopRunner(const LaneLoopRunner&) = delete;
  LaneLoopRunner& operator=(const LaneLoopRunner&) = delete;

  // Gives the next threadgroup of a worker's share (its linear index); false when none is left.
  using NextThreadgroup = std::function<bool(uint64_t&)>;
  // Runs the threadgroups `next` gives (of `dispatch`, whose lane_loops is set), one after another
  // on one start of the fiber, each to its end, until none is left or one is abandoned with a
  // report (then the dispatch stops): the stack, the fiber's start and the fault trap's set-up
  // are paid once per share rather than per threadgroup (a third of an empty threadgroup's time).
  void run_share(DispatchState& dispatch, const NextThreadgroup& next);
  // After this worker's last threadgroup of a dispatch: adds its threadgroups to
  // lane_loop_threadgroups_total (once per dispatch, not per threadgroup: one counter that every
  // worker bumps for every threadgroup is a contended cache line).
  void end_dispatch();

 private:
  enum class Status : uint8_t { Ready, Stopped, Done };

  void prepare(DispatchState& dispatch, const ThreadgroupPlace& place);
  void prepare_local_positions();
  bool prepare_frame();
  bool allocate_threadgroup_variables();
  static void share_entry(void* self);
  void run_share_on_fiber();
  void run_threadgroup();
  void run_without_sync_points();
  void run_ready();
  bool run_together(uint32_t& cont);
  bool common_stop(uint32_t& stop) const;
  // The step for the lanes [first, first + count) (or lanes[0 .. count)) from `cont`, then
  // (step) their stops recorded lane by lane.
  void run_step(uint32_t cont, uint32_t first, uint32_t count, const uint16_t* lanes);
  void step(uint32_t cont, uint32_t first, uint32_t count, const uint16_t* lanes);
  void record_stops(uint32_t first, uint32_t count, const uint16_t* lanes);
  // Whether every lane of [first, first + count) returned in the step just run.
  bool all_returned(uint32_t first, uint32_t count) const;
  bool release_simd_stops();
  void resolve_simdgroup(uint32_t simdgroup, bool& released);
  void combine(uint32_t head, const CollectiveCall& call, const uint16_t* ids);
  void combine_whole_simdgroup(uint32_t sg);
  bool release_barrier();
  void release(uint32_t lane);
  void report_divergent_barrier();
  void report_barrier_after_exit();
  void report_kernel_exception(const char* what);
  void report_fault();
  report::Report lane_report(report::CheckId id, uint32_t lane,
                             const std::source_location* site) const;
  report::Report running_lanes_report(report::CheckId id) const;
  void report(report::Report r) const;

  fiber::StackPool& stacks_;
  ThreadgroupArena& arena_;
  DispatchState* dispatch_ = nullptr;
  const LaneLoopKernel* kernel_ = nullptr;
  uint64_t prepared_serial_ = 0;        // the dispatch args_ was copied from
  uint64_t threadgroups_run_here_ = 0;  // not yet added to the total (end_dispatch)
  abi::BoundArgs args_;
  LaneLoopState state_;
  uint32_t n_ = 0;     // lanes in this threadgroup
  uint32_t live_ = 0;  // lanes not done
  bool sync_check_ = true;
  bool yielded_ = false;  // a step left lanes ready (stopped at a yield, kLaneYield)

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

  // The lanes running kernel code now (a step, or a collective's combine): what a fault or an
  // exception can name. `running_lanes_` nullptr: running_first_ .. + running_count_ - 1.
  uint32_t running_first_ = 0, running_count_ = 0;
  const uint16_t* running_lanes_ = nullptr;

  struct FreeFrame {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, FreeFrame> frame_;
  size_t frame_capacity_ = 0;

  fiber::Fiber fiber_;  // the threadgroup's, on a guarded stack of the pool
  sigjmp_buf recovery_;
  // While run_share runs: where the fiber takes its next threadgroup from, and the trap it
  // disarms between threadgroups.
  const NextThreadgroup* next_ = nullptr;
  fault::FaultTrap* trap_ = nullptr;
};

}  // namespace metalsim::engine
