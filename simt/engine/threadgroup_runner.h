#pragma once
// Runs one threadgroup at a time for one worker. Lanes start as plain calls on the runner's
// own (guarded) stack; the first lane that reaches a sync point becomes the driver: the lanes
// not yet started move onto fibers, and the driver schedules them until the sync point
// resolves. A kernel that never synchronises therefore runs as a plain loop with no switch.
//
// Resolution rules (DESIGN.md part 3):
//  - threadgroup_barrier: when every live lane waits at a threadgroup barrier. All at one call
//    site: released. Different sites: barrier.divergent, the threadgroup is abandoned. Some
//    lanes already returned: barrier.exited (sync check), released.
//  - simd functions: when every live lane of the simdgroup is blocked somewhere, the lanes
//    blocked at the same call site are combined (the active mask), per site.
#include <csetjmp>
#include <cstdint>
#include <exception>
#include <source_location>
#include <stdexcept>
#include <vector>

#include "simt/abi/dispatch_request.h"
#include "simt/checks/race_shadow.h"
#include "simt/checks/running_threadgroup.h"
#include "simt/checks/uninit_trace.h"
#include "simt/engine/ready_queue.h"
#include "simt/engine/schedule.h"
#include "simt/engine/sync.h"
#include "simt/engine/threadgroup_arena.h"
#include "simt/fiber/fiber.h"
#include "simt/report/report.h"

namespace metalsim::engine {

struct DispatchState;     // dispatch_state.h: the request plus what its workers share
struct ThreadgroupPlace;  // dispatch_state.h

// What a blocked lane waits for. A threadgroup barrier sets only kind and site (it is on the
// hot path, and nothing reads the rest for a barrier).
struct SyncRequest {
  SyncKind kind;
  std::source_location site;
  CombineFn combine = nullptr;
  CollectiveMember member;  // left unset by barriers
};

class ThreadgroupRunner final : public checks::RunningThreadgroup {
 public:
  ThreadgroupRunner(fiber::StackPool& stacks, ThreadgroupArena& arena);

  // Runs threadgroup `linear_tg` of `dispatch`, at `place`, to the end, or abandons it with a
  // report.
  void run(DispatchState& dispatch, uint64_t linear_tg, const ThreadgroupPlace& place);
  // After this worker's last threadgroup of a dispatch: adds the lanes it started on fibers to
  // fibers_started_total (once per dispatch and worker, not per threadgroup: one counter that
  // every worker bumps is a contended cache line).
  void end_dispatch();

  // The runner of the calling worker while it runs a threadgroup, else nullptr. Inline: every
  // sync point asks.
  static ThreadgroupRunner* current() { return current_; }
  // The same for the MSL library's calls, which are only valid inside a kernel.
  static ThreadgroupRunner& current_or_throw() {
    if (current_ == nullptr) [[unlikely]]
      throw std::logic_error("metalsim: an MSL sync point or query was called outside a kernel");
    return *current_;
  }

  // The running lane waits at a sync point. Inline into the sync points (the fiber lane's path).
  [[gnu::always_inline]] inline void block(SyncRequest& request);
  const void* function_constant(uint32_t index) const;
  void* threadgroup_variable(ThreadgroupVariableSite& site);
  const ThreadgroupArena& arena() const { return arena_; }

  // What the checks see (running_threadgroup.h).
  uint32_t current_lane() const override;
  const abi::DispatchRequest& request() const override;
  bool describe_threadgroup_memory(const void* address, std::string& region,
                                   uint64_t& offset) const override;
  report::Report lane_report(report::CheckId id, uint32_t lane,
                             const std::source_location* site) override;
  void report(report::Report r) override;
  void defer_report(report::Report r) override { deferred_.push_back(std::move(r)); }
  report::Report classify_fault(const fault::FaultRecord& fault) override;  // fault_report.h
  checks::race::WorkerShadow* race() const override { return race_; }

  // Fault recovery (fault.cpp jumps here from a signal handler).

 private:
  enum class Status : uint8_t { NotStarted, Running, Ready, Blocked, Done };
  // Kept small (scanned at every barrier); fibers and errors live in arrays of their own.
  struct Lane {
    Status status = Status::NotStarted;
    bool failed = false;
    uint16_t id = 0;
    SyncRequest* request = nullptr;
  };
  struct Abandon {};  // thrown to unwind the driver when the threadgroup cannot go on

  void prepare(DispatchState& dispatch, uint64_t linear_tg, const ThreadgroupPlace& place);
  void prepare_dispatch(DispatchState& dispatch);
  void prepare_lane_states();
  void prepare_local_positions();
  static void drive_entry(void* self);
  void drive();
  static void lane_entry(void* lane);
  void start_every_lane_on_a_fiber();
  void start_fiber(Lane& lane);
  [[gnu::always_inline]] inline void block_fiber_lane(Lane& lane, SyncRequest& request);
  void block_plain_lane(SyncRequest& request);
  void* ordering_token(SyncKind kind, uint32_t lane);
  void schedule_until(Lane* target);
  void run_lane(Lane& lane);
  void on_finished(Lane& lane);
  // The barrier's hot path, inlined into block(): each call frame there is a few more writes
  // to a lane stack that has gone cold while the other lanes ran.
  [[gnu::always_inline]] inline Lane* take_direct_successor();
  [[gnu::always_inline]] inline void on_blocked(Lane& lane);
  [[gnu::always_inline]] inline void arrive_at_barrier(Lane& lane);
  void report_barrier_after_exit();
  void on_done(Lane& lane);
  void try_resolve_simdgroup(uint32_t simdgroup);
  void try_resolve_barrier();
  void resolve_barrier();
  [[gnu::always_inline]] inline void release(Lane& lane);
  void release_in_policy_order(uint16_t* lanes, uint32_t count);
  void diagnose_stall();
  void abandon_fibers();
  void recover_from_fault();
  void begin_uninit_trace();
  void end_uninit_trace();

  [[noreturn]] void abandon_threadgroup();

  static inline thread_local ThreadgroupRunner* current_ = nullptr;

  fiber::StackPool& stacks_;
  ThreadgroupArena& arena_;
  DispatchState* dispatch_ = nullptr;
  abi::ThreadgroupGeometry tg_;
  abi::BoundArgs args_;
  ScheduleRng rng_{0};

  std::vector<Lane> lanes_;
  std::vector<fiber::Fiber> fibers_;
  uint64_t fibers_started_here_ = 0;  // lanes started on fibers, not yet in the total
  std::vector<std::exception_ptr> errors_;
  const uint16_t* order_ = nullptr;  // initial order of plain lanes
  std::vector<uint16_t> identity_order_, reversed_order_, shuffled_order_;
  uint64_t prepared_serial_ = 0;  // the dispatch args_ was copied from
  ReadyQueue ready_;
  uint16_t local_[abi::kMaxThreadsPerThreadgroup][3] =
      {};  // thread_position_in_threadgroup by lane
  Size3 local_size_{0, 0, 0};

  abi::LaneCursor* cursor_ = nullptr;  // the plain lanes, while the kernel loop runs
  Lane* running_ = nullptr;            // the fiber lane now running, nullptr: a plain lane
  bool hijacked_ = false;              // a plain lane became the driver
  static constexpr uint16_t kNoLane = 0xffff;
  uint16_t driver_lane_ = kNoLane;  // that lane: it runs on the scheduler's stack
  uint32_t done_ = 0;
  // The threadgroup barrier now filling: its site, its lanes in arrival order (at_barrier_ of
  // them).
  const std::source_location* barrier_site_ = nullptr;
  bool barrier_divergent_ = false;
  uint16_t barrier_waiters_[abi::kMaxThreadsPerThreadgroup] = {};
  uint32_t at_barrier_ = 0;
  // Per simdgroup: live lanes, lanes blocked anywhere, lanes at a collective.
  static constexpr uint32_t kMaxSimdgroups = abi::kMaxThreadsPerThreadgroup / abi::kSimdWidth;
  uint8_t live_in_simd_[kMaxSimdgroups] = {};
  uint8_t blocked_in_simd_[kMaxSimdgroups] = {};
  uint8_t simd_waiting_[kMaxSimdgroups] = {};
  // Racecheck ordering (race_annotations.h): epochs and the addresses released/acquired.
  uint64_t barrier_epoch_ = 0;
  std::vector<uint32_t> simd_epoch_;  // sized per threadgroup in racecheck builds
  char ordering_tokens_[2 + 2 * kMaxSimdgroups] = {};

  checks::race::WorkerShadow race_worker_;
  checks::race::WorkerShadow* race_ = nullptr;

  fiber::Fiber drive_fiber_;
  sigjmp_buf recovery_;
  std::vector<report::Report> deferred_;
  checks::UninitTrace uninit_trace_;
};

}  // namespace metalsim::engine
