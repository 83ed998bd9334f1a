// Not fortified: siglongjmp from the fault handler's stack back to the worker's stack is the
// point (fault.cpp), and _FORTIFY_SOURCE's longjmp check would reject it.
#undef _FORTIFY_SOURCE
#include "simt/engine/lane_loop_runner.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "simt/engine/dispatch_state.h"
#include "simt/engine/fault_report.h"
#include "simt/engine/kernel_log.h"
#include "simt/fault/fault.h"
#include "simt/report/sync_site.h"

namespace metalsim::engine {
namespace {

// stop[lane] until the step writes it: a lane the step did not stop is the pass's bug. Its four
// bytes are equal, so a range of lanes is marked by one memset.
constexpr uint8_t kNotStoppedByte = 0xFE;
constexpr uint32_t kNotStopped = 0x01010101u * kNotStoppedByte;

// Whether the `count` elements at `p` all equal the first. memcmp of the range against itself
// one element along: the C library's vectorized compare, where the engine's -O2 leaves a scan
// of a run-time length scalar (these scans were half of an empty threadgroup's 218 ns at 256
// lanes).
template <typename T>
bool all_equal(const T* p, uint32_t count) {
  return count <= 1 || std::memcmp(p, p + 1, size_t(count - 1) * sizeof(T)) == 0;
}

std::atomic<uint64_t> threadgroups_run{0};

bool is_collective(uint8_t kind) {
  return kind == uint8_t(SyncKind::SimdCollective) || kind == uint8_t(SyncKind::SimdMatrix);
}

}  // namespace

void LaneLoopRunner::FreeFrame::operator()(char* p) const { std::free(p); }

uint64_t lane_loop_threadgroups_total() { return threadgroups_run.load(); }

LaneLoopRunner::LaneLoopRunner(fiber::StackPool& stacks, ThreadgroupArena& arena)
    : stacks_(stacks), arena_(arena) {
  const size_t n = abi::kMaxThreadsPerThreadgroup;
  status_.resize(n);
  cont_.resize(n);
  stop_.resize(n);
  kind_.resize(n);
  site_.resize(n);
  combine_.resize(n);
  in_.resize(n);
  out_.resize(n);
  arg_.resize(n);
  local_x_.resize(n);
  local_y_.resize(n);
  local_z_.resize(n);
  scratch_lanes_.resize(n);
  state_.local_x = local_x_.data();
  state_.local_y = local_y_.data();
  state_.local_z = local_z_.data();
  state_.stop = stop_.data();
  state_.kind = kind_.data();
  state_.site = site_.data();
  state_.combine = combine_.data();
  state_.in = in_.data();
  state_.out = out_.data();
  state_.arg = arg_.data();
}

LaneLoopRunner::~LaneLoopRunner() = default;

void LaneLoopRunner::end_dispatch() {
  if (threadgroups_run_here_ == 0) return;
  threadgroups_run.fetch_add(std::exchange(threadgroups_run_here_, 0), std::memory_order_relaxed);
}

// ------------------------------ set-up

void LaneLoopRunner::prepare_local_positions() {
  if (state_.size == local_size_) return;
  local_size_ = state_.size;
  uint32_t i = 0;
  for (uint32_t z = 0; z < local_size_.z; ++z)
    for (uint32_t y = 0; y < local_size_.y; ++y)
      for (uint32_t x = 0; x < local_size_.x; ++x, ++i) {
        local_x_[i] = uint16_t(x);
        local_y_[i] = uint16_t(y);
        local_z_[i] = uint16_t(z);
      }
}

// A lane's frame holds what a fiber keeps on its stack across sync points (and the kernel's
// local arrays): more than a lane's stack holds is the fibers' stack.overflow, filed here for
// the first lane, as fibers file it for the first lane to run.
bool LaneLoopRunner::prepare_frame() {
  if (kernel_->frame_bytes_per_lane > stacks_.stack_bytes()) {
    report::Report r = lane_report(report::CheckId::stack_overflow, 0, nullptr);
    const abi::KernelInfo& k = *dispatch_->request.kernel;
    r.site = {k.source_file, k.source_line, k.name};
    r.message = "the thread's private memory in lane loops (" +
                std::to_string(kernel_->frame_bytes_per_lane) + " bytes) overflows its " +
                std::to_string(stacks_.stack_bytes() / 1024) +
                " KiB stack (set METALSIM_STACK_SIZE for more)";
    report(std::move(r));
    dispatch_->stop.store(true);
    return false;
  }
  const size_t bytes = size_t(kernel_->frame_bytes_per_lane) * n_;
  if (bytes > frame_capacity_) {
    const size_t rounded = (bytes + kLaneFrameAlign - 1) / kLaneFrameAlign * kLaneFrameAlign;
    frame_.reset(static_cast<char*>(std::aligned_alloc(kLaneFrameAlign, rounded)));
    if (!frame_) throw std::bad_alloc();
    frame_capacity_ = rounded;
  }
  state_.frame = frame_.get();
  state_.frame_lanes = n_;
  return true;
}

void LaneLoopRunner::prepare(DispatchState& dispatch, const ThreadgroupPlace& place) {
  const abi::DispatchRequest& req = dispatch.request;
  dispatch_ = &dispatch;
  kernel_ = dispatch.lane_loops;
  if (prepared_serial_ != dispatch.serial) {  // once per dispatch and worker
    prepared_serial_ = dispatch.serial;
    args_ = req.args;
    for (uint32_t i = 0; i < abi::kMaxThreadgroupBindings; ++i)
      args_.threadgroup_lengths[i] = req.threadgroup_lengths[i];
    state_.dispatch = &req.geometry;
    state_.function_constants = req.function_constants.data();
    state_.function_constant_count = req.function_constants.size();
    sync_check_ = req.options.checks.sync;
  }
  state_.position = place.position;
  state_.size = place.size;
  n_ = uint32_t(state_.size.volume());
  state_.thread_count = n_;
  state_.simdgroup_count = (n_ + abi::kSimdWidth - 1) / abi::kSimdWidth;
  prepare_local_positions();
  // Regions are remapped per threadgroup in racecheck builds (ThreadgroupArena): read them each
  // time.
  arena_.begin_threadgroup(req.options.checks.init, req.threadgroup_poison);
  for (uint32_t i = 0; i < abi::kMaxThreadgroupBindings; ++i)
    args_.threadgroup[i] = arena_.region(i);
  live_ = n_;
  running_first_ = running_count_ = 0;
  running_lanes_ = nullptr;
  // A kernel without sync points runs its lanes in one step and reads no per-lane state
  // (run_threadgroup).
  if (kernel_->has_no_sync_points) return;
  std::fill_n(status_.begin(), n_, Status::Ready);
  std::fill_n(cont_.begin(), n_, 0u);
}

// Kernel-scope threadgroup variables, in the order the pass listed them (the fibers allocate
// each when its declaration is first reached; the addresses differ, the contents do not).
bool LaneLoopRunner::allocate_threadgroup_variables() {
  const auto sites = kernel_->threadgroup_variables;
  threadgroup_variables_.resize(sites.size());
  for (size_t i = 0; i < sites.size(); ++i) {
    ThreadgroupVariableSite& site = *sites[i];
    threadgroup_variables_[i] = arena_.allocate_static(site);
    if (threadgroup_variables_[i] != nullptr) continue;
    report::Report r = lane_report(report::CheckId::limit_threadgroup_memory, 0, nullptr);
    r.site = {site.file, site.line, ""};
    r.message = arena_.describe_overflow(site, dispatch_->request.threadgroup_memory_limit);
    report(std::move(r));
    return false;
  }
  state_.threadgroup_variables = threadgroup_variables_.data();
  return true;
}

// ------------------------------ run

void LaneLoopRunner::run_share(DispatchState& dispatch, const NextThreadgroup& next) {
  dispatch_ = &dispatch;
  next_ = &next;
  // Logging names the threadgroup each line comes from; this one only clears the thread's
  // current threadgroup when the share ends, however it ends (a fault jumps past the fiber's).
  const LoggingThreadgroup logging_scope(dispatch.log, dispatch.request, 0, {}, {});
  fiber::GuardedStack* stack = stacks_.acquire();
  fiber_.start(stack, &LaneLoopRunner::share_entry, this);
  fault::FaultTrap trap(&recovery_);
  trap_ = &trap;
  // savemask 0 and SA_NODEFER handlers, as ThreadgroupRunner::run: no system call per share.
  if (sigsetjmp(recovery_, 0) == 0) {
    fiber_.resume();
    trap.disarm();
  } else {
    // A memory fault or the watchdog, inside kernel code: nothing on the fiber's stack can be
    // unwound; the stack is reused, the rest of the dispatch is skipped.
    trap.disarm();
    report_fault();
    fiber_.abandon();
    dispatch.stop.store(true);
  }
  trap_ = nullptr;
  next_ = nullptr;
  stacks_.release(stack);
}

void LaneLoopRunner::share_entry(void* self) {
  static_cast<LaneLoopRunner*>(self)->run_share_on_fiber();
}

// On the share's fiber: each threadgroup in turn. The trap is armed only while a threadgroup
// runs: the engine's set-up between two (which may allocate) is not kernel code, and the
// watchdog's signal is ignored there as between threadgroups (its stop flag ends the share).
void LaneLoopRunner::run_share_on_fiber() {
  DispatchState& dispatch = *dispatch_;
  for (uint64_t linear = 0; (*next_)(linear);) {
    const ThreadgroupPlace place = dispatch.locate(linear);
    const LoggingThreadgroup logging(dispatch.log, dispatch.request, linear, place.position,
                                     place.size);
    ++threadgroups_run_here_;
    prepare(dispatch, place);
    if (!prepare_frame() || !allocate_threadgroup_variables()) return;
    trap_->arm();
    run_threadgroup();
    trap_->disarm();
  }
}

// On the threadgroup's stack: steps and resolutions until every lane returned, or the
// threadgroup is abandoned. An exception never leaves the fiber.
void LaneLoopRunner::run_threadgroup() {
  try {
    if (kernel_->has_no_sync_points) {
      run_without_sync_points();
      return;
    }
    // Every lane starts at the kernel's start, and the lanes run as one group for as long as
    // each step stops them all at one place (issue 23 item 3).
    uint32_t cont = 0;
    while (run_together(cont)) {
    }
    // The lanes parted (or all returned): lanes that yielded run again before anything
    // resolves; simd stops resolve before barriers.
    while (live_ != 0) {
      if (yielded_) {
        yielded_ = false;
        run_ready();
        continue;
      }
      if (!release_simd_stops() && !release_barrier()) return;
      run_ready();
    }
  } catch (const std::exception& e) {
    report_kernel_exception(e.what());
  } catch (...) {
    report_kernel_exception(nullptr);
  }
}

// A kernel in which the pass found no sync point (no barrier, collective or yield): one step runs
// every lane to its return, so nothing needs recording or resolving. An element-wise kernel's
// threadgroup of 256 lanes spent a third of its runtime cost filling and scanning the stop
// table (engine_bench BM_EmptyThreadgroup).
void LaneLoopRunner::run_without_sync_points() {
  running_first_ = 0;
  running_count_ = n_;
  running_lanes_ = nullptr;
  dispatch_->step(args_, state_, 0, 0, n_, nullptr);
  live_ = 0;
}

// One step of every lane from `cont`. When every lane stopped at the same sync point (or yield)
// it resolves here without per-lane bookkeeping: a stop all lanes reach is one barrier, one call
// site of a collective per simdgroup, nothing diverged and nobody returned, so the fiber engine's
// rules release it at once. Returns true with `cont` the continuation to run next; false when
// the lanes returned or parted, their stops then recorded lane by lane.
bool LaneLoopRunner::run_together(uint32_t& cont) {
  yielded_ = false;
  run_step(cont, 0, n_, nullptr);
  uint32_t stop = 0;
  if (!common_stop(stop)) {
    record_stops(0, n_, nullptr);
    return false;
  }
  if (stop == kNotStopped) throw std::logic_error("the lane-loop step did not stop lane 0");
  if (stop == kLaneDone) {
    std::fill_n(status_.begin(), n_, Status::Done);
    live_ = 0;
    return false;
  }
  if (is_collective(kind_[0]) && combine_[0] != nullptr)
    for (uint32_t sg = 0; sg < state_.simdgroup_count; ++sg) combine_whole_simdgroup(sg);
  cont = stop;
  return true;
}

// Whether every lane of the threadgroup stopped at the same place in the last step: the same
// continuation, and (unless they all returned) the same kind and call site. One continuation may
// stand for several call sites: the optimizer merges a barrier in each arm of a branch into one
// call whose site is chosen per lane (`if (i < 4) threadgroup_barrier(); else
// threadgroup_barrier();`, which is barrier.divergent).
bool LaneLoopRunner::common_stop(uint32_t& stop) const {
  stop = stop_[0];
  if (!all_equal(stop_.data(), n_)) return false;
  if (stop == kLaneDone) return true;
  return all_equal(kind_.data(), n_) && all_equal(site_.data(), n_);
}

// Every ready lane runs to its next stop: one step per continuation, the lanes of one
// continuation as one contiguous range when they are (always, until lanes diverge).
void LaneLoopRunner::run_ready() {
  uint32_t count = 0;
  for (uint32_t lane = 0; lane < n_; ++lane)
    if (status_[lane] == Status::Ready) scratch_lanes_[count++] = uint16_t(lane);
  if (count == 0) return;
  uint16_t* lanes = scratch_lanes_.data();
  const uint32_t c0 = cont_[lanes[0]];
  if (!std::all_of(lanes, lanes + count, [&](uint16_t l) { return cont_[l] == c0; }))
    std::stable_sort(lanes, lanes + count,
                     [&](uint16_t a, uint16_t b) { return cont_[a] < cont_[b]; });
  for (uint32_t begin = 0; begin < count;) {
    uint32_t end = begin + 1;
    while (end < count && cont_[lanes[end]] == cont_[lanes[begin]]) ++end;
    const uint32_t k = end - begin;
    const bool contiguous = uint32_t(lanes[end - 1] - lanes[begin]) + 1 == k;
    step(cont_[lanes[begin]], lanes[begin], k, contiguous ? nullptr : lanes + begin);
    begin = end;
  }
}

void LaneLoopRunner::run_step(uint32_t cont, uint32_t first, uint32_t count,
                              const uint16_t* lanes) {
  if (lanes == nullptr)
    std::memset(stop_.data() + first, kNotStoppedByte, count * sizeof(uint32_t));
  else
    for (uint32_t i = 0; i < count; ++i) stop_[lanes[i]] = kNotStopped;
  running_first_ = first;
  running_count_ = count;
  running_lanes_ = lanes;
  dispatch_->step(args_, state_, cont, first, count, lanes);
}

void LaneLoopRunner::step(uint32_t cont, uint32_t first, uint32_t count, const uint16_t* lanes) {
  run_step(cont, first, count, lanes);
  record_stops(first, count, lanes);
}

void LaneLoopRunner::record_stops(uint32_t first, uint32_t count, const uint16_t* lanes) {
  if (lanes == nullptr && all_returned(first, count)) {
    // The usual outcome of a kernel without sync points: one branch-free scan, no per-lane
    // bookkeeping.
    std::fill_n(status_.begin() + first, count, Status::Done);
    live_ -= count;
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t lane = lanes != nullptr ? lanes[i] : first + i;
    if (stop_[lane] == kNotStopped)
      throw std::logic_error("the lane-loop step did not stop lane " + std::to_string(lane));
    if (stop_[lane] == kLaneDone) {
      status_[lane] = Status::Done;
      --live_;
    } else if (kind_[lane] == kLaneYield) {
      release(lane);
      yielded_ = true;
    } else {
      status_[lane] = Status::Stopped;
    }
  }
}

bool LaneLoopRunner::all_returned(uint32_t first, uint32_t count) const {
  const uint32_t* stop = stop_.data() + first;
  return count == 0 || (stop[0] == kLaneDone && all_equal(stop, count));
}

void LaneLoopRunner::release(uint32_t lane) {
  status_[lane] = Status::Ready;
  cont_[lane] = stop_[lane];
}

// ------------------------------ resolution

bool LaneLoopRunner::release_simd_stops() {
  bool released = false;
  for (uint32_t sg = 0; sg < state_.simdgroup_count; ++sg) resolve_simdgroup(sg, released);
  return released;
}

// Every live lane of the simdgroup is stopped: the lanes stopped at one call site form one call
// (its active mask), each site separately, in the order of their lowest lanes (as fibers).
void LaneLoopRunner::resolve_simdgroup(uint32_t sg, bool& released) {
  const uint32_t first = sg * abi::kSimdWidth;
  const uint32_t size = std::min(abi::kSimdWidth, n_ - first);
  auto at_simd_stop = [&](uint32_t lane) {
    return status_[lane] == Status::Stopped && kind_[lane] != uint8_t(SyncKind::ThreadgroupBarrier);
  };
  uint32_t live = 0;
  for (uint32_t i = 0; i < size; ++i) live += status_[first + i] != Status::Done;
  bool taken[abi::kSimdWidth] = {};
  CollectiveMember members[abi::kSimdWidth];
  uint16_t ids[abi::kSimdWidth];
  for (uint32_t i = 0; i < size; ++i) {
    const uint32_t head = first + i;
    if (taken[i] || !at_simd_stop(head)) continue;
    uint32_t count = 0, mask = 0;
    for (uint32_t j = i; j < size; ++j) {
      const uint32_t l = first + j;
      if (taken[j] || !at_simd_stop(l) || !report::same_site(site_[l], site_[head])) continue;
      taken[j] = true;
      members[count] = {j, in_[l], out_[l], arg_[l]};
      ids[count++] = uint16_t(l);
      mask |= 1u << j;
    }
    if (kind_[head] == uint8_t(SyncKind::SimdMatrix) && count != live && sync_check_) {
      report::Report r = lane_report(report::CheckId::simd_partial, head, &site_[head]);
      r.message = "simdgroup_matrix operation reached by " + std::to_string(count) + " of " +
                  std::to_string(live) + " live lanes of simdgroup " + std::to_string(sg);
      report(std::move(r));
    }
    if (is_collective(kind_[head]) && combine_[head] != nullptr)
      combine(head, CollectiveCall{members, count, mask, size}, ids);
    for (uint32_t k = 0; k < count; ++k) release(ids[k]);
    released = true;
  }
}

// The collective that lane `head` stopped at, for the members of `call` (lanes `ids`).
void LaneLoopRunner::combine(uint32_t head, const CollectiveCall& call, const uint16_t* ids) {
  running_count_ = call.count;  // a combine may touch memory (simdgroup_matrix loads, stores)
  running_lanes_ = ids;
  fault::CollectiveScope scope(site_[head]);
  combine_[head](call);
  running_count_ = 0;
  running_lanes_ = nullptr;
}

// Every lane of simdgroup `sg` stopped at the same collective: one call of all of them.
void LaneLoopRunner::combine_whole_simdgroup(uint32_t sg) {
  const uint32_t first = sg * abi::kSimdWidth;
  const uint32_t size = std::min(abi::kSimdWidth, n_ - first);
  CollectiveMember members[abi::kSimdWidth];
  uint16_t ids[abi::kSimdWidth];
  for (uint32_t j = 0; j < size; ++j) {
    const uint32_t lane = first + j;
    members[j] = {j, in_[lane], out_[lane], arg_[lane]};
    ids[j] = uint16_t(lane);
  }
  const uint32_t mask = size == 32 ? ~0u : (1u << size) - 1;
  combine(first, CollectiveCall{members, size, mask, size}, ids);
}

// Every live lane waits at a threadgroup barrier (or none is live).
bool LaneLoopRunner::release_barrier() {
  uint32_t head = 0;
  while (head < n_ && status_[head] != Status::Stopped) ++head;
  if (head == n_) throw std::logic_error("lane loops: live lanes, but none waits at a barrier");
  for (uint32_t lane = head + 1; lane < n_; ++lane)
    if (status_[lane] == Status::Stopped && !report::same_site(site_[lane], site_[head])) {
      report_divergent_barrier();
      return false;
    }
  if (live_ < n_ && sync_check_) report_barrier_after_exit();
  for (uint32_t lane = head; lane < n_; ++lane)
    if (status_[lane] == Status::Stopped) release(lane);
  return true;
}

// ------------------------------ reports

void LaneLoopRunner::report_divergent_barrier() {
  std::vector<const std::source_location*> sites;
  std::vector<std::vector<uint16_t>> lanes_at;
  for (uint32_t lane = 0; lane < n_; ++lane) {
    if (status_[lane] != Status::Stopped) continue;
    size_t k = 0;
    while (k < sites.size() && !report::same_site(*sites[k], site_[lane])) ++k;
    if (k == sites.size()) {
      sites.push_back(&site_[lane]);
      lanes_at.emplace_back();
    }
    lanes_at[k].push_back(uint16_t(lane));
  }
  report::Report r = lane_report(report::CheckId::barrier_divergent, lanes_at[0][0], sites[0]);
  r.message = "threads of one threadgroup wait at different barriers; " +
              report::lane_list(lanes_at[0]) + " wait here";
  r.other_site = report::to_site(*sites[1]);
  r.other_lanes = report::lane_list(lanes_at[1]);
  report(std::move(r));
}

void LaneLoopRunner::report_barrier_after_exit() {
  std::vector<uint16_t> exited;
  uint32_t head = n_;
  for (uint32_t lane = 0; lane < n_; ++lane) {
    if (status_[lane] == Status::Done) exited.push_back(uint16_t(lane));
    else if (head == n_) head = lane;
  }
  report::Report r = lane_report(report::CheckId::barrier_exited, head, &site_[head]);
  r.message = "threadgroup_barrier reached while " + std::to_string(n_ - live_) + " of " +
              std::to_string(n_) + " threads had already returned";
  r.other_lanes = "returned threads: " + report::lane_list(exited);
  report(std::move(r));
}

void LaneLoopRunner::report_kernel_exception(const char* what) {
  report::Report r = running_lanes_report(report::CheckId::kernel_exception);
  r.message = what != nullptr ? std::string("the kernel threw: ") + what
                              : "the kernel threw a non-standard exception";
  report(std::move(r));
}

// A memory fault or the watchdog's signal, classified as on fibers (fault_report.h).
// A texture access check knows its lane (the lane body passes it on): that lane, not the loop's.
void LaneLoopRunner::report_fault() {
  const fault::FaultRecord fault = fault::FaultTrap::last_fault();
  report::Report r = fault.lane < n_
                         ? lane_report(report::CheckId::kernel_fault, fault.lane, nullptr)
                         : running_lanes_report(report::CheckId::kernel_fault);
  FaultScene scene;
  scene.request = &dispatch_->request;
  scene.stacks = &stacks_;
  scene.arena = &arena_;
  scene.running_stack = fiber_.stack();
  describe_fault(fault, scene, r);
  if (!r.thread_known) {
    std::vector<uint16_t> lanes(running_count_);
    for (uint32_t i = 0; i < running_count_; ++i)
      lanes[i] = uint16_t(running_lanes_ != nullptr ? running_lanes_[i] : running_first_ + i);
    r.running_lanes = report::lane_list(lanes);
  }
  report(std::move(r));
}

// A report about the lanes running now: the lane when one was, else the threadgroup alone
// (lane loops do not publish which lane of a loop is at work: that would cost a store per lane).
report::Report LaneLoopRunner::running_lanes_report(report::CheckId id) const {
  const uint32_t first = running_lanes_ != nullptr ? running_lanes_[0] : running_first_;
  report::Report r = lane_report(id, running_count_ > 0 ? first : 0, nullptr);
  r.thread_known = running_count_ == 1;
  return r;
}

void LaneLoopRunner::report(report::Report r) const { dispatch_->reports.add(std::move(r)); }

report::Report LaneLoopRunner::lane_report(report::CheckId id, uint32_t lane,
                                           const std::source_location* site) const {
  report::Report r;
  r.check = id;
  r.kernel = dispatch_->request.kernel->name;
  r.has_lane = true;
  r.lane.threadgroup = state_.position;
  r.lane.thread = {local_x_[lane], local_y_[lane], local_z_[lane]};
  r.lane.simdgroup = lane / abi::kSimdWidth;
  r.lane.simd_lane = lane % abi::kSimdWidth;
  if (site != nullptr) r.site = report::to_site(*site);
  return r;
}

}  // namespace metalsim::engine
