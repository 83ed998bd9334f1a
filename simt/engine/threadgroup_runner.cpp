#include "simt/engine/threadgroup_runner.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "simt/checks/race_annotations.h"
#include "simt/engine/dispatch_state.h"
#include "simt/engine/fault_report.h"
#include "simt/fault/fault.h"
#include "simt/report/symbolize.h"
#include "simt/report/sync_site.h"

namespace metalsim::engine {
namespace {

std::atomic<uint64_t> fibers_started{0};

}  // namespace

ThreadgroupRunner::ThreadgroupRunner(fiber::StackPool& stacks, ThreadgroupArena& arena)
    : stacks_(stacks), arena_(arena) {
  lanes_.resize(abi::kMaxThreadsPerThreadgroup);
  fibers_.resize(abi::kMaxThreadsPerThreadgroup);
  errors_.resize(abi::kMaxThreadsPerThreadgroup);
  identity_order_.resize(abi::kMaxThreadsPerThreadgroup);
  for (size_t i = 0; i < lanes_.size(); ++i) {
    lanes_[i].id = uint16_t(i);
    identity_order_[i] = uint16_t(i);
  }
}

uint64_t fibers_started_total() { return fibers_started.load(); }

// Once per dispatch and worker, not per lane nor per threadgroup (1.5 million lanes for the
// multi-token mat-vec at out_dim 49152).
void ThreadgroupRunner::end_dispatch() {
  if (fibers_started_here_ == 0) return;
  fibers_started.fetch_add(std::exchange(fibers_started_here_, 0), std::memory_order_relaxed);
}

// ------------------------------ set-up

void ThreadgroupRunner::prepare_local_positions() {
  if (tg_.size == local_size_) return;
  local_size_ = tg_.size;
  uint32_t i = 0;
  for (uint32_t z = 0; z < tg_.size.z; ++z)
    for (uint32_t y = 0; y < tg_.size.y; ++y)
      for (uint32_t x = 0; x < tg_.size.x; ++x, ++i) {
        local_[i][0] = uint16_t(x);
        local_[i][1] = uint16_t(y);
        local_[i][2] = uint16_t(z);
      }
}

// Once per dispatch and worker: the bound arguments and this worker's threadgroup regions.
void ThreadgroupRunner::prepare_dispatch(DispatchState& dispatch) {
  if (prepared_serial_ == dispatch.serial) return;
  prepared_serial_ = dispatch.serial;
  const abi::DispatchRequest& req = dispatch.request;
  args_ = req.args;
  for (uint32_t i = 0; i < abi::kMaxThreadgroupBindings; ++i) {
    args_.threadgroup[i] = arena_.region(i);
    args_.threadgroup_lengths[i] = req.threadgroup_lengths[i];
  }
}

// Per threadgroup: only what the plain path needs. Lane states are set up lazily, when a lane
// first reaches a sync point (prepare_lane_states), so barrier-free kernels never pay for them.
void ThreadgroupRunner::prepare(DispatchState& dispatch, uint64_t linear_tg,
                                const ThreadgroupPlace& place) {
  const abi::DispatchRequest& req = dispatch.request;
  dispatch_ = &dispatch;
  prepare_dispatch(dispatch);
  tg_.dispatch = &req.geometry;
  tg_.position = place.position;
  tg_.size = place.size;
  tg_.thread_count = uint32_t(tg_.size.volume());
  tg_.simdgroup_count = (tg_.thread_count + abi::kSimdWidth - 1) / abi::kSimdWidth;
  prepare_local_positions();
  tg_.local = local_;
  arena_.begin_threadgroup(req.options.checks.init, req.threadgroup_poison);
  race_ = dispatch.race != nullptr ? &race_worker_ : nullptr;
  if (race_ != nullptr)
    race_->begin(*dispatch.race, dispatch.serial, linear_tg, arena_.mapping_begin(),
                 arena_.mapping_end());
  if constexpr (checks::race::kEnabled)  // the arena was remapped: see ThreadgroupArena
    for (uint32_t i = 0; i < abi::kMaxThreadgroupBindings; ++i)
      args_.threadgroup[i] = arena_.region(i);

  const uint32_t n = tg_.thread_count;
  const SchedulePolicy& policy = req.options.schedule;
  switch (policy.kind) {
    case ScheduleKind::in_order: order_ = identity_order_.data(); break;
    case ScheduleKind::reversed:
      if (reversed_order_.size() != n) {
        reversed_order_.resize(n);
        for (uint32_t i = 0; i < n; ++i) reversed_order_[i] = uint16_t(n - 1 - i);
      }
      order_ = reversed_order_.data();
      break;
    case ScheduleKind::random:
      rng_ = ScheduleRng(threadgroup_seed(policy, linear_tg));
      shuffled_order_.assign(identity_order_.begin(), identity_order_.begin() + n);
      shuffle(std::span<uint16_t>(shuffled_order_), rng_);
      order_ = shuffled_order_.data();
      break;
  }
  hijacked_ = false;
  driver_lane_ = kNoLane;
  running_ = nullptr;
  cursor_ = nullptr;
}

void ThreadgroupRunner::prepare_lane_states() {
  const uint32_t n = tg_.thread_count;
  for (uint32_t i = 0; i < n; ++i) {
    lanes_[i].status = Status::NotStarted;
    lanes_[i].request = nullptr;
    lanes_[i].failed = false;
  }
  std::fill_n(live_in_simd_, tg_.simdgroup_count, 0);
  std::fill_n(blocked_in_simd_, tg_.simdgroup_count, 0);
  std::fill_n(simd_waiting_, tg_.simdgroup_count, 0);
  if constexpr (checks::race::kEnabled) simd_epoch_.assign(tg_.simdgroup_count, 0);
  for (uint32_t i = 0; i < n; ++i) ++live_in_simd_[i / abi::kSimdWidth];
  ready_.clear();
  done_ = 0;
  at_barrier_ = 0;
}

// ------------------------------ run

void ThreadgroupRunner::run(DispatchState& dispatch, uint64_t linear_tg,
                            const ThreadgroupPlace& place) {
  prepare(dispatch, linear_tg, place);
  current_ = this;
  set_current(this);
  fiber::GuardedStack* stack = stacks_.acquire();
  drive_fiber_.start(stack, &ThreadgroupRunner::drive_entry, this);
  if (dispatch.request.trace_uninit) begin_uninit_trace();
  fault::FaultTrap trap(&recovery_);
  // savemask 0: no sigprocmask system call per threadgroup; the handlers run with
  // SA_NODEFER, so jumping out of them leaves nothing blocked.
  if (sigsetjmp(recovery_, 0) == 0) {
    trap.arm();
    drive_fiber_.resume();
    trap.disarm();
    stacks_.release(stack);
  } else {
    // A signal (memory fault, watchdog) jumped here from inside a lane: nothing on the lane
    // stacks can be unwound, so the fibers and their stacks are abandoned and reused.
    trap.disarm();
    recover_from_fault();
    drive_fiber_.abandon();
    stacks_.release(stack);
  }
  if (uninit_trace_.active()) end_uninit_trace();
  for (report::Report& r : deferred_) report(std::move(r));
  deferred_.clear();
  current_ = nullptr;
  set_current(nullptr);
}

void ThreadgroupRunner::drive_entry(void* self) { static_cast<ThreadgroupRunner*>(self)->drive(); }

void ThreadgroupRunner::drive() {
  const abi::KernelEntry entry = dispatch_->entry;
  abi::LaneCursor cursor(tg_, order_, tg_.thread_count);
  cursor_ = &cursor;
  try {
    if constexpr (checks::race::kEnabled) {
      start_every_lane_on_a_fiber();
    } else {
      entry(args_, cursor);
    }
    cursor_ = nullptr;
    if (checks::race::kEnabled) {
      schedule_until(nullptr);
    } else if (hijacked_) {
      on_done(lanes_[cursor.lane()]);  // the driver's own return
      schedule_until(nullptr);
    }
  } catch (const Abandon&) {
    abandon_fibers();
  } catch (const std::exception& e) {
    report::Report r = lane_report(report::CheckId::kernel_exception, current_lane(), nullptr);
    r.message = std::string("the kernel threw: ") + e.what();
    report(std::move(r));
    abandon_fibers();
  } catch (...) {
    report::Report r = lane_report(report::CheckId::kernel_exception, current_lane(), nullptr);
    r.message = "the kernel threw a non-standard exception";
    report(std::move(r));
    abandon_fibers();
  }
  cursor_ = nullptr;
}

// Racecheck: each lane is a ThreadSanitizer fiber of its own from the start (plain calls on
// one stack would be one TSan context, in program order, and hide every race between lanes).
// Creating them all before any runs keeps the scheduler's context from leaking order into them.
void ThreadgroupRunner::start_every_lane_on_a_fiber() {
  hijacked_ = true;
  cursor_->take_rest();
  prepare_lane_states();
  for (uint32_t i = 0; i < tg_.thread_count; ++i) {
    Lane& lane = lanes_[order_[i]];
    start_fiber(lane);
    release(lane);
  }
}

void ThreadgroupRunner::start_fiber(Lane& lane) {
  fiber::Fiber& fiber = fibers_[lane.id];
  fiber.start(stacks_.acquire(), &ThreadgroupRunner::lane_entry, &lane, checks::race::kEnabled);
  ++fibers_started_here_;  // added to the global count once per dispatch (end_dispatch)
  if constexpr (checks::race::kEnabled) {
    char name[64];
    std::snprintf(name, sizeof name, "tg(%u,%u,%u) lane(%u,%u,%u)", tg_.position.x, tg_.position.y,
                  tg_.position.z, local_[lane.id][0], local_[lane.id][1], local_[lane.id][2]);
    fiber.set_name(name);
  }
  lane.status = Status::Ready;
}

void ThreadgroupRunner::lane_entry(void* p) {
  auto* lane = static_cast<Lane*>(p);
  ThreadgroupRunner& self = *current_;
  try {
    abi::LaneCursor one(self.tg_, &lane->id, 1);
    self.dispatch_->entry(self.args_, one);
    checks::race::release(&self.dispatch_->finish_token);
  } catch (...) {
    self.errors_[lane->id] = std::current_exception();
    lane->failed = true;
  }
}

// ------------------------------ the sync points (sync.h)

void threadgroup_barrier(std::source_location site) {
  SyncRequest request;  // no collective: combine and member stay unset
  request.kind = SyncKind::ThreadgroupBarrier;
  request.site = site;
  ThreadgroupRunner::current_or_throw().block(request);
}

void simdgroup_barrier(std::source_location site) {
  SyncRequest request{SyncKind::SimdgroupBarrier, site, nullptr, {}};
  ThreadgroupRunner::current_or_throw().block(request);
}

void simd_collective(CombineFn combine, const void* in, void* out, uint64_t arg, SyncKind kind,
                     std::source_location site) {
  SyncRequest request{kind, site, combine, CollectiveMember{0, in, out, arg}};
  ThreadgroupRunner::current_or_throw().block(request);
}

// ------------------------------ blocking and scheduling

uint32_t ThreadgroupRunner::current_lane() const {
  if (running_ != nullptr) return running_->id;
  return cursor_ != nullptr ? cursor_->published_lane() : 0;
}

void ThreadgroupRunner::block(SyncRequest& request) {
  if (running_ != nullptr) [[likely]] {
    block_fiber_lane(*running_, request);
    return;
  }
  block_plain_lane(request);
}

// A fiber lane: its own bookkeeping, then on to the next lane. The barrier's hot path: kept
// apart from the plain lane's, so that its frame stays small.
void ThreadgroupRunner::block_fiber_lane(Lane& lane, SyncRequest& request) {
  // Racecheck only: off that build, no epoch bookkeeping on the barrier path.
  void* token = checks::race::kEnabled ? ordering_token(request.kind, lane.id) : nullptr;
  checks::race::release(token);
  checks::race::IgnoreScope bookkeeping;  // the engine's bookkeeping is not the kernel's access
  lane.request = &request;
  lane.status = Status::Blocked;
  on_blocked(lane);
  Lane* next = take_direct_successor();
  bookkeeping.end();  // never across the switch: an abandoned lane must not keep it
  if (next != &lane) {
    fiber::Fiber& self = fibers_[lane.id];
    if (next == nullptr) {
      self.suspend();  // the scheduler runs the driver lane, or diagnoses a stall
    } else {
      running_ = next;
      self.switch_to(fibers_[next->id]);
    }
  }
  checks::race::acquire(token);
}

void ThreadgroupRunner::block_plain_lane(SyncRequest& request) {
  // A plain lane: it becomes (or already is) the driver. Lanes before it in the walk have
  // returned; lanes after it have not started and will run on fibers.
  Lane& self = lanes_[cursor_->lane()];
  if (!hijacked_) {
    hijacked_ = true;
    driver_lane_ = self.id;
    prepare_lane_states();
    const uint32_t first_not_started = cursor_->take_rest();
    for (uint32_t i = 0; i + 1 < first_not_started; ++i) on_done(lanes_[order_[i]]);
    for (uint32_t i = first_not_started; i < tg_.thread_count; ++i) release(lanes_[order_[i]]);
  }
  self.request = &request;
  self.status = Status::Blocked;
  on_blocked(self);
  schedule_until(&self);
}

// The lane a blocking fiber lane hands control to without the scheduler: the head of the
// ready queue (marked running; it may be the blocking lane itself), or nullptr when the
// scheduler must act (nothing ready, or the head is the driver lane, which lives on the
// scheduler's stack).
ThreadgroupRunner::Lane* ThreadgroupRunner::take_direct_successor() {
  if (ready_.empty()) return nullptr;
  Lane& next = lanes_[ready_.front()];
  if (next.id == driver_lane_) return nullptr;
  ready_.pop();
  if (next.status == Status::NotStarted) start_fiber(next);
  next.status = Status::Running;
  return &next;
}

void ThreadgroupRunner::release(Lane& lane) {
  if (lane.status != Status::NotStarted) lane.status = Status::Ready;
  lane.request = nullptr;
  ready_.push(lane.id);
}

void ThreadgroupRunner::schedule_until(Lane* target) {
  for (;;) {
    if (ready_.empty()) {
      if (target == nullptr && done_ == tg_.thread_count) return;
      diagnose_stall();  // reports and abandons: with the rules above this is a divergence
    }
    Lane& next = lanes_[ready_.front()];
    ready_.pop();
    if (&next == target) {
      next.status = Status::Running;
      return;
    }
    run_lane(next);
  }
}

// Resumes `lane`; lanes may then hand control to each other (take_direct_successor) until one
// suspends to the scheduler or returns. A blocked lane did its own bookkeeping (block).
void ThreadgroupRunner::run_lane(Lane& lane) {
  if (lane.status == Status::NotStarted) start_fiber(lane);
  lane.status = Status::Running;
  running_ = &lane;
  fiber::Fiber* back = fibers_[lane.id].resume();
  running_ = nullptr;
  if (back->finished()) on_finished(lanes_[size_t(back - fibers_.data())]);
}

void ThreadgroupRunner::on_finished(Lane& lane) {
  fiber::Fiber& fiber = fibers_[lane.id];
  stacks_.release(fiber.stack());
  fiber.abandon();
  if (lane.failed) {
    std::exception_ptr error = std::exchange(errors_[lane.id], nullptr);
    try {
      std::rethrow_exception(error);
    } catch (const Abandon&) {
      abandon_threadgroup();  // already reported inside the lane
    } catch (...) {
    }
    report::Report r = lane_report(report::CheckId::kernel_exception, lane.id, nullptr);
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      r.message = std::string("the kernel threw: ") + e.what();
    } catch (...) {
      r.message = "the kernel threw a non-standard exception";
    }
    report(std::move(r));
    abandon_threadgroup();
  }
  on_done(lane);
}

void ThreadgroupRunner::on_blocked(Lane& lane) {
  const uint32_t sg = lane.id / abi::kSimdWidth;
  ++blocked_in_simd_[sg];
  if (lane.request->kind == SyncKind::ThreadgroupBarrier) {
    arrive_at_barrier(lane);
    if (simd_waiting_[sg] != 0) try_resolve_simdgroup(sg);
    if (at_barrier_ == tg_.thread_count - done_) resolve_barrier();
  } else {
    ++simd_waiting_[sg];
    try_resolve_simdgroup(sg);
  }
}

// The barrier's call site is set by its first arrival; a later arrival elsewhere marks the
// epoch divergent, reported when every live lane has arrived.
void ThreadgroupRunner::arrive_at_barrier(Lane& lane) {
  if (at_barrier_ == 0) {
    barrier_site_ = &lane.request->site;
    barrier_divergent_ = false;
  } else if (!report::same_site(*barrier_site_, lane.request->site)) {
    barrier_divergent_ = true;
  }
  barrier_waiters_[at_barrier_++] = lane.id;
}

void ThreadgroupRunner::on_done(Lane& lane) {
  lane.status = Status::Done;
  ++done_;
  const uint32_t sg = lane.id / abi::kSimdWidth;
  --live_in_simd_[sg];
  try_resolve_simdgroup(sg);
  try_resolve_barrier();
}

// ------------------------------ resolution

void ThreadgroupRunner::try_resolve_simdgroup(uint32_t sg) {
  if (simd_waiting_[sg] == 0 || blocked_in_simd_[sg] != live_in_simd_[sg]) return;
  const uint32_t first = sg * abi::kSimdWidth;
  const uint32_t size = std::min(abi::kSimdWidth, tg_.thread_count - first);
  CollectiveMember members[abi::kSimdWidth];
  uint16_t ids[abi::kSimdWidth];
  bool taken[abi::kSimdWidth] = {};
  for (uint32_t i = 0; i < size; ++i) {
    Lane& head = lanes_[first + i];
    if (taken[i] || head.status != Status::Blocked ||
        head.request->kind == SyncKind::ThreadgroupBarrier)
      continue;
    // Every lane blocked at the same call site as `head` joins its call.
    uint32_t count = 0, mask = 0;
    for (uint32_t j = i; j < size; ++j) {
      Lane& l = lanes_[first + j];
      if (taken[j] || l.status != Status::Blocked ||
          l.request->kind == SyncKind::ThreadgroupBarrier ||
          !report::same_site(l.request->site, head.request->site))
        continue;
      taken[j] = true;
      members[count] = l.request->member;
      members[count].simd_lane = j;
      ids[count++] = l.id;
      mask |= 1u << j;
    }
    if (head.request->kind == SyncKind::SimdMatrix && count != live_in_simd_[sg] &&
        dispatch_->request.options.checks.sync) {
      report::Report r = lane_report(report::CheckId::simd_partial, head.id, &head.request->site);
      r.message = "simdgroup_matrix operation reached by " + std::to_string(count) + " of " +
                  std::to_string(live_in_simd_[sg]) + " live lanes of simdgroup " +
                  std::to_string(sg);
      report(std::move(r));
    }
    if (race_ != nullptr) race_->clock().collective_begin(sg, head.id);
    if (head.request->combine != nullptr) {
      fault::CollectiveScope call(head.request->site);
      checks::race::ignore_begin();
      head.request->combine(CollectiveCall{members, count, mask, size});
      checks::race::ignore_end();
    }
    if (race_ != nullptr) race_->clock().collective_end(sg);
    blocked_in_simd_[sg] -= uint8_t(count);
    simd_waiting_[sg] -= uint8_t(count);
    release_in_policy_order(ids, count);
  }
  if constexpr (checks::race::kEnabled) ++simd_epoch_[sg];
}

// The address a lane releases at arrival and acquires at departure (racecheck): one per
// barrier epoch, one per simdgroup epoch. Two alternate: an epoch's departures all happen
// before the epoch after next can begin.
void* ThreadgroupRunner::ordering_token(SyncKind kind, uint32_t lane) {
  if (kind == SyncKind::ThreadgroupBarrier) return &ordering_tokens_[barrier_epoch_ & 1];
  const uint32_t sg = lane / abi::kSimdWidth;
  return &ordering_tokens_[2 + 2 * sg + (simd_epoch_[sg] & 1)];
}

void ThreadgroupRunner::try_resolve_barrier() {
  const uint32_t live = tg_.thread_count - done_;
  if (at_barrier_ != 0 && at_barrier_ == live) resolve_barrier();
}

// Every live lane waits at a threadgroup barrier: at the same one?
void ThreadgroupRunner::resolve_barrier() {
  if (barrier_divergent_) diagnose_stall();
  if (done_ > 0 && dispatch_->request.options.checks.sync) report_barrier_after_exit();
  const uint32_t count = std::exchange(at_barrier_, 0u);
  if constexpr (checks::race::kEnabled) ++barrier_epoch_;
  if (race_ != nullptr) race_->clock().barrier();
  uint16_t* const waiters = barrier_waiters_;
  // Lanes arrive in lane order unless the schedule or divergence reordered them.
  if (!std::is_sorted(waiters, waiters + count)) std::sort(waiters, waiters + count);
  for (uint32_t i = 0; i < count; ++i) --blocked_in_simd_[waiters[i] / abi::kSimdWidth];
  release_in_policy_order(waiters, count);
}

void ThreadgroupRunner::report_barrier_after_exit() {
  report::Report r =
      lane_report(report::CheckId::barrier_exited, barrier_waiters_[0], barrier_site_);
  std::vector<uint16_t> exited;
  for (uint32_t i = 0; i < tg_.thread_count; ++i)
    if (lanes_[i].status == Status::Done) exited.push_back(uint16_t(i));
  r.message = "threadgroup_barrier reached while " + std::to_string(done_) + " of " +
              std::to_string(tg_.thread_count) + " threads had already returned";
  r.other_lanes = "returned threads: " + report::lane_list(exited);
  report(std::move(r));
}

void ThreadgroupRunner::release_in_policy_order(uint16_t* ids, uint32_t count) {
  switch (dispatch_->request.options.schedule.kind) {
    case ScheduleKind::in_order: break;
    case ScheduleKind::reversed: std::reverse(ids, ids + count); break;
    case ScheduleKind::random: shuffle(std::span<uint16_t>(ids, count), rng_); break;
  }
  for (uint32_t i = 0; i < count; ++i) release(lanes_[ids[i]]);
}

// Nothing can run: lanes wait at different barriers (or the rules above were broken). Names
// the call sites and the lanes at each, then abandons the threadgroup.
void ThreadgroupRunner::diagnose_stall() {
  std::vector<const std::source_location*> sites;
  std::vector<std::vector<uint16_t>> lanes_at;
  for (uint32_t i = 0; i < tg_.thread_count; ++i) {
    const Lane& l = lanes_[i];
    if (l.status != Status::Blocked) continue;
    size_t k = 0;
    while (k < sites.size() && !report::same_site(*sites[k], l.request->site)) ++k;
    if (k == sites.size()) {
      sites.push_back(&l.request->site);
      lanes_at.emplace_back();
    }
    lanes_at[k].push_back(uint16_t(i));
  }
  const bool divergent = sites.size() >= 2;
  report::Report r =
      lane_report(divergent ? report::CheckId::barrier_divergent : report::CheckId::sync_deadlock,
                  sites.empty() ? 0 : lanes_at[0][0], sites.empty() ? nullptr : sites[0]);
  if (divergent) {
    r.message = "threads of one threadgroup wait at different barriers; " +
                report::lane_list(lanes_at[0]) + " wait here";
    r.other_site = report::to_site(*sites[1]);
    r.other_lanes = report::lane_list(lanes_at[1]);
  } else {
    r.message = "no thread of the threadgroup can make progress";
  }
  report(std::move(r));
  abandon_threadgroup();
}

// ------------------------------ abandoning

void ThreadgroupRunner::abandon_threadgroup() { throw Abandon{}; }

void ThreadgroupRunner::abandon_fibers() {
  if (!hijacked_) return;
  for (uint32_t i = 0; i < tg_.thread_count; ++i) {
    fiber::Fiber& f = fibers_[i];
    if (f.started() && !f.finished()) {
      stacks_.release(f.stack());
      f.abandon();
    }
  }
  running_ = nullptr;
}

void ThreadgroupRunner::recover_from_fault() {
  const fault::FaultRecord fault = fault::FaultTrap::last_fault();
  report(classify_fault(fault));
  abandon_fibers();
  dispatch_->stop.store(true);
}

// Names what the faulting address belongs to (fault_report.h), for the lane that was running.
report::Report ThreadgroupRunner::classify_fault(const fault::FaultRecord& fault) {
  report::Report r = lane_report(report::CheckId::kernel_fault, current_lane(), nullptr);
  FaultScene scene;
  scene.request = &dispatch_->request;
  scene.stacks = &stacks_;
  scene.arena = &arena_;
  scene.running_stack = running_ != nullptr ? fibers_[running_->id].stack() : drive_fiber_.stack();
  describe_fault(fault, scene, r);
  return r;
}

// ------------------------------ initcheck's locating pass

void ThreadgroupRunner::begin_uninit_trace() {
  fault::install_single_step_handler();
  arena_.begin_trace(uninit_trace_);
  fault::current_signal_tracer() = &uninit_trace_;
}

// Every instruction that read threadgroup memory no lane had written becomes a report.
void ThreadgroupRunner::end_uninit_trace() {
  fault::current_signal_tracer() = nullptr;
  uninit_trace_.end();
  for (size_t i = 0; i < uninit_trace_.read_count(); ++i) {
    const checks::UninitRead& read = uninit_trace_.reads()[i];
    report::Report r = lane_report(report::CheckId::uninit_threadgroup, read.lane, nullptr);
    fault::name_user_site(r, read.pc, read.callers);
    std::string region;
    uint64_t offset = 0;
    if (arena_.describe_data(read.address, region, offset)) {
      r.memory = region;
      r.has_offset = true;
      r.offset = offset;
    }
    r.message = "read of threadgroup memory that no thread of the threadgroup had written";
    report(std::move(r));
  }
}

// ------------------------------ reports

report::Report ThreadgroupRunner::lane_report(report::CheckId id, uint32_t lane,
                                              const std::source_location* site) {
  report::Report r;
  r.check = id;
  r.kernel = dispatch_->request.kernel->name;
  r.has_lane = true;
  r.lane.threadgroup = tg_.position;
  r.lane.thread = {local_[lane][0], local_[lane][1], local_[lane][2]};
  r.lane.simdgroup = lane / abi::kSimdWidth;
  r.lane.simd_lane = lane % abi::kSimdWidth;
  if (site != nullptr) r.site = report::to_site(*site);
  return r;
}

void ThreadgroupRunner::report(report::Report r) { dispatch_->reports.add(std::move(r)); }

const abi::DispatchRequest& ThreadgroupRunner::request() const { return dispatch_->request; }

bool ThreadgroupRunner::describe_threadgroup_memory(const void* address, std::string& region,
                                                    uint64_t& offset) const {
  return arena_.describe_data(address, region, offset);
}

const void* ThreadgroupRunner::function_constant(uint32_t index) const {
  const auto& constants = dispatch_->request.function_constants;
  return index < constants.size() ? constants[index] : nullptr;
}

void* ThreadgroupRunner::threadgroup_variable(ThreadgroupVariableSite& site) {
  checks::race::ignore_begin();  // the allocation's poison fill is not the kernel's write
  void* p = arena_.allocate_static(site);
  checks::race::ignore_end();
  if (p == nullptr) {
    report::Report r =
        lane_report(report::CheckId::limit_threadgroup_memory, current_lane(), nullptr);
    r.site = {site.file, site.line, ""};
    r.message = arena_.describe_overflow(site, dispatch_->request.threadgroup_memory_limit);
    report(std::move(r));
    abandon_threadgroup();
  }
  return p;
}

}  // namespace metalsim::engine
