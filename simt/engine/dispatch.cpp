#include "simt/engine/dispatch.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <utility>

#include "simt/checks/access_check.h"
#include "simt/checks/initcheck.h"
#include "simt/checks/race_annotations.h"
#include "simt/checks/race_shadow.h"
#include "simt/engine/dispatch_state.h"
#include "simt/engine/execution_mode.h"
#include "simt/engine/kernel_variants.h"
#include "simt/engine/lane_loop_runner.h"
#include "simt/engine/threadgroup_runner.h"
#include "simt/engine/watchdog.h"
#include "simt/engine/worker_pool.h"
#include "simt/fault/fault.h"
#include "simt/fiber/guarded_stack.h"
#include "simt/report/symbolize.h"

namespace metalsim::checks {
void link_race_reporting();  // race_report.cpp
}

namespace metalsim::engine {
namespace {

// What each worker thread keeps from one dispatch to the next: a runner for each execution mode.
struct Worker {
  explicit Worker(size_t stack_bytes)
      : stacks(stack_bytes), runner(stacks, arena), lane_loops(stacks, arena) {}
  fiber::StackPool stacks;
  ThreadgroupArena arena;
  ThreadgroupRunner runner;
  LaneLoopRunner lane_loops;

  // Lane loops without per-threadgroup events: the worker's share on one fiber start.
  void run_share(DispatchState& state, const LaneLoopRunner::NextThreadgroup& next) {
    const checks::ActiveDispatch active(state.request);  // for the access checks (access_check.h)
    lane_loops.run_share(state, next);
  }

  void run(DispatchState& state, uint64_t linear_threadgroup) {
    if (state.lane_loops != nullptr) {  // a share of one threadgroup
      bool given = false;
      run_share(state, [&](uint64_t& tg) {
        tg = linear_threadgroup;
        return !std::exchange(given, true);
      });
      return;
    }
    const checks::ActiveDispatch active(state.request);  // for the access checks (access_check.h)
    const ThreadgroupPlace place = state.locate(linear_threadgroup);
    const LoggingThreadgroup logging(state.log, state.request, linear_threadgroup, place.position,
                                     place.size);
    runner.run(state, linear_threadgroup, place);
  }
  // After the worker's last threadgroup of a dispatch.
  void end_dispatch() {
    runner.end_dispatch();
    lane_loops.end_dispatch();
  }
};

// Ends a worker's share of a dispatch, however it leaves it (Worker::end_dispatch).
struct EndOfShare {
  Worker& worker;
  ~EndOfShare() { worker.end_dispatch(); }
};

// This thread's worker, kept under a POSIX thread-specific key whose destructor frees it: glibc
// runs those after every C++ thread-local destructor of the thread, and one of those may still
// dispatch (a thread-local made before metalsim's is destroyed after them: MLX's thread-local
// command encoders commit as they are destroyed). A C++ thread_local worker was gone by then.
pthread_key_t worker_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k{};
    pthread_key_create(&k, [](void* worker) { delete static_cast<Worker*>(worker); });
    return k;
  }();
  return key;
}

Worker& this_worker(size_t stack_bytes) {
  auto* worker = static_cast<Worker*>(pthread_getspecific(worker_key()));
  if (worker == nullptr || worker->stacks.stack_bytes() != stack_bytes) {
    delete worker;
    worker = new Worker(stack_bytes);
    pthread_setspecific(worker_key(), worker);
  }
  return *worker;
}

// How many threadgroups a worker takes at once (SharedHandout). When the workers took from one
// shared counter, one at a time, many small threadgroups (an element-wise kernel's 176 K of 256
// lanes) made 16 workers contend for its cache line on every threadgroup; a chunk of a few keeps
// every worker busy to the end (the last chunks are a sixteenth of a worker's share at most).
uint64_t handout_chunk(uint64_t count, int workers) {
  return std::clamp<uint64_t>(count / (uint64_t(workers) * 16), 1, 16);
}

// The dispatch's threadgroups as the workers share them, in chunks of `chunk` positions of
// `order`: chunk j is worker (j mod W)'s, the (j div W)-th of its own sequence, so the workers
// start on the grid's first W chunks together and go on in grid order. Each worker takes its own
// chunks through a counter on its own cache line, then helps the others by taking from their
// counters (a worker that is late, asleep or descheduled holds nothing back).
//
// Why not one counter for every worker: at 16 workers on the device machine, each take waited
// for the other workers' (1.4-1.6 us a threadgroup of an empty dispatch, against 40 ns at one
// worker: docs/performance.md, "The empty dispatch"). Here a worker's takes of its own
// chunks touch no other core's cache line unless someone is helping it.
class SharedHandout {
 public:
  SharedHandout(uint64_t count, int workers, uint64_t chunk)
      : count_(count),
        chunk_(chunk),
        chunks_((count + chunk - 1) / chunk),
        workers_(uint64_t(workers)),
        sequences_(new Sequence[size_t(workers)]) {}

  uint64_t count() const { return count_; }
  uint64_t chunk() const { return chunk_; }
  int workers() const { return int(workers_); }
  // The first position of the next chunk of worker w's sequence not yet taken; count() when
  // none is left. A load before the increment: helpers that find a sequence done do not write
  // its line.
  uint64_t take(int w) {
    const uint64_t owned = chunks_owned(uint64_t(w));
    std::atomic<uint64_t>& next = sequences_[w].next;
    if (next.load(std::memory_order_relaxed) >= owned) return count_;
    const uint64_t k = next.fetch_add(1, std::memory_order_relaxed);
    if (k >= owned) return count_;
    return (k * workers_ + uint64_t(w)) * chunk_;
  }

 private:
  // Chunks j < chunks_ with j mod W == w.
  uint64_t chunks_owned(uint64_t w) const {
    return w < chunks_ ? (chunks_ - w + workers_ - 1) / workers_ : 0;
  }

  struct alignas(64) Sequence {
    std::atomic<uint64_t> next{0};  // the index in the worker's sequence of its next chunk
  };
  const uint64_t count_, chunk_, chunks_, workers_;
  const std::unique_ptr<Sequence[]> sequences_;
};

// A worker's view of the dispatch's threadgroups (SharedHandout), in `order`: its own chunks,
// then the others' not yet taken, starting with the next worker's. Once the dispatch stops, the
// rest are skipped. A line of its own: worker 0's is on the dispatching thread's stack, below the
// DispatchState every worker reads for each threadgroup.
class alignas(64) Handout {
 public:
  Handout(SharedHandout& shared, int worker, const std::vector<uint64_t>& order,
          const std::atomic<bool>& stop)
      : shared_(shared), worker_(worker), from_(worker), order_(order), stop_(stop) {}

  // The next threadgroup's linear index; false when none is left to run.
  bool next(uint64_t& linear) {
    while (!stop_.load(std::memory_order_relaxed)) {
      if (i_ == end_ && !take()) return false;
      const uint64_t i = i_++;
      linear = order_.empty() ? i : order_[i];
      return true;
    }
    return false;
  }

 private:
  // Sets [i_, end_) to the next chunk this worker runs; false when every sequence is done.
  bool take() {
    const uint64_t count = shared_.count();
    for (int tried = 0; tried < shared_.workers(); ++tried) {
      const uint64_t begin = shared_.take(from_);
      if (begin != count) {
        i_ = begin;
        end_ = std::min(count, begin + shared_.chunk());
        return true;
      }
      from_ = (from_ + 1) % shared_.workers();  // this sequence is done: help the next
      if (from_ == worker_) break;
    }
    return false;
  }

  SharedHandout& shared_;
  const int worker_;
  int from_;  // the worker whose sequence this one takes from now
  const std::vector<uint64_t>& order_;
  const std::atomic<bool>& stop_;
  uint64_t i_ = 0, end_ = 0;
};

// The order threadgroups are handed out in: a seeded permutation, or reversed; empty for the
// in-order schedule (the identity: no allocation and fill of a table as long as the grid).
std::vector<uint64_t> threadgroup_order(const abi::DispatchRequest& req, uint64_t count) {
  if (req.options.schedule.kind == ScheduleKind::in_order) return {};
  std::vector<uint64_t> order(count);
  for (uint64_t i = 0; i < count; ++i) order[i] = i;
  if (req.options.schedule.kind == ScheduleKind::random) {
    ScheduleRng rng(req.options.schedule.seed * 0x9e3779b97f4a7c15ull + 7);
    for (uint64_t i = count; i > 1; --i) std::swap(order[i - 1], order[rng.next() % i]);
  } else if (req.options.schedule.kind == ScheduleKind::reversed) {
    std::reverse(order.begin(), order.end());
  }
  return order;
}

uint64_t steady_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

// The watchdog's limit for one dispatch: its seconds, cut to the absolute deadline if any.
double watchdog_limit(const ExecutionOptions& o) {
  if (o.watchdog_deadline_ns == 0) return o.watchdog_seconds;
  const double left = std::max(1e-3, (double(o.watchdog_deadline_ns) - double(steady_ns())) * 1e-9);
  return o.watchdog_seconds > 0 ? std::min(o.watchdog_seconds, left) : left;
}

std::atomic<uint64_t> dispatches_by_variant[2];

// The code the dispatch runs: the fast variant when mem, race and init are off and the kernel's
// library has one; else the checked one (a library compiled without the access-check pass has
// only that one, uninstrumented too).
void choose_variant(const abi::DispatchRequest& request, DispatchState& state) {
  state.entry = request.kernel->entry;
  state.step = state.lane_loops != nullptr ? state.lane_loops->step : nullptr;
  if (needs_checked_variant(request.options.checks) || request.options.checked_variant) return;
  if (state.lane_loops != nullptr) {
    const LaneStep step = fast_variant_of(state.step);
    if (step == nullptr) return;
    state.step = step;
  } else {
    const abi::KernelEntry entry = fast_variant_of(state.entry);
    if (entry == nullptr) return;
    state.entry = entry;
  }
  state.variant = KernelVariant::fast;
}

}  // namespace

uint64_t variant_dispatches_total(KernelVariant variant) {
  return dispatches_by_variant[int(variant)].load();
}

bool racecheck_available() { return checks::race::kEnabled; }

abi::DispatchOutcome run_dispatch_once(const abi::DispatchRequest& request);  // below

abi::DispatchOutcome execute_dispatch(const abi::DispatchRequest& request) {
  if (request.options.checks.init && !request.trace_uninit)
    return checks::run_with_initcheck(request, &run_dispatch_once);
  return run_dispatch_once(request);
}

// The watchdog ended a dispatch while no lane was running (before the first threadgroup or between
// two): threadgroups were skipped, so the outputs are incomplete and the run must say why.
report::Report timeout_between_threadgroups(const abi::DispatchRequest& request, double seconds) {
  report::Report r;
  r.check = report::CheckId::watchdog_timeout;
  r.kernel = request.kernel->name;
  r.site = {request.kernel->source_file, request.kernel->source_line, ""};
  r.message = "the dispatch ran past its limit of " + std::to_string(seconds) +
              " s between threadgroups; the threadgroups not begun were skipped";
  return r;
}

bool has_check(const std::vector<report::Report>& reports, report::CheckId id) {
  for (const report::Report& r : reports)
    if (r.check == id) return true;
  return false;
}

// Lane loops were asked for a kernel that cannot run in them: nothing runs.
abi::DispatchOutcome refuse_lane_loops(const abi::DispatchRequest& request,
                                       const std::string& why) {
  report::Report r;
  r.check = report::CheckId::mode_unavailable;
  r.kernel = request.kernel->name;
  r.site = {request.kernel->source_file, request.kernel->source_line, ""};
  r.message = "--mode loops, but the kernel cannot run in lane loops: " + why;
  return {false, {std::move(r)}, {}};
}

abi::DispatchOutcome run_dispatch_once(const abi::DispatchRequest& request) {
  checks::link_race_reporting();
  const ModeDecision mode = decide_execution_mode(request);
  if (!mode.refused.empty()) return refuse_lane_loops(request, mode.refused);
  DispatchState state(request);
  state.lane_loops = mode.loops;
  choose_variant(request, state);
  dispatches_by_variant[int(state.variant)].fetch_add(1, std::memory_order_relaxed);
  const checks::BindingMarks bindings(request);  // byte-precise bounds of the bound offsets
  const checks::race::DispatchRace race_check(request, mode.loops != nullptr);
  state.race = race_check.shadow();
  const uint64_t count = request.geometry.threadgroups.volume();
  const std::vector<uint64_t> order = threadgroup_order(request, count);
  const size_t stack_bytes =
      request.options.stack_bytes != 0 ? request.options.stack_bytes : fiber::default_stack_bytes();
  uint32_t static_capacity = request.threadgroup_memory_limit;
  for (uint32_t len : request.threadgroup_lengths)
    static_capacity = len >= static_capacity ? 0 : static_capacity - len;

  // No more workers than threadgroups: a worker with nothing to run still pays its set-up (its
  // arena's guard pages, the watchdog's registration) and the fork and join; a one-threadgroup
  // dispatch (argmax over one row) took 8 ms at 16 workers against 1 ms at one.
  const uint64_t asked =
      request.options.workers != 0 ? request.options.workers : uint64_t(omp_get_max_threads());
  const int workers = int(std::max<uint64_t>(1, std::min(asked, count)));
  const double watchdog_seconds = watchdog_limit(request.options);
  Watchdog watchdog(state.stop, watchdog_seconds, workers);
  checks::race::release(&state.start_token);
  // Threadgroups are handed out in `order`, in chunks (handout_chunk), to the engine's
  // persistent workers (worker_pool.h): no thread team is forked and joined per dispatch. Each
  // worker has its own sequence of chunks, interleaved over the grid (SharedHandout), and helps
  // the others when its own is done. Not a fixed contiguous share per worker (tried): a worker
  // woken late then holds back the whole dispatch, and threadgroups far along the grid start at
  // once, so a known bug's failure kind changed with the workers' timing (a fault in the second
  // worker's first threadgroup ended the dispatch before the first worker reached its bounds
  // report; docs/performance.md, "The set-up cut").
  SharedHandout shared_handout(count, workers, handout_chunk(count, workers));
  WorkerPool::shared().run(workers, [&](int worker_index) {
    checks::race::acquire(&state.start_token);
    Worker& worker = this_worker(stack_bytes);
    worker.arena.configure(request.threadgroup_lengths, static_capacity);
    if (watchdog.armed()) watchdog.add_worker(worker_index);
    const EndOfShare end_of_share{worker};
    Handout handout(shared_handout, worker_index, order, state.stop);
    if (state.lane_loops != nullptr && !request.options.on_threadgroup) {
      worker.run_share(state, [&handout](uint64_t& tg) { return handout.next(tg); });
    } else {
      for (uint64_t tg = 0; handout.next(tg);) {
        if (!request.options.on_threadgroup) {
          worker.run(state, tg);
          continue;
        }
        ThreadgroupEvent event;
        event.worker = uint32_t(worker_index);
        event.linear_threadgroup = tg;
        event.position = state.locate(tg).position;
        event.variant = state.variant;
        event.begin_ns = steady_ns();
        worker.run(state, tg);
        event.end_ns = steady_ns();
        request.options.on_threadgroup(event);
      }
    }
    checks::race::release(&state.finish_token);  // the worker's reads of the request, before the
                                                 // host reuses it
  });
  checks::race::acquire(&state.finish_token);
  watchdog.disarm();  // every threadgroup has run or been skipped: a late firing skips nothing
  abi::DispatchOutcome outcome;
  outcome.reports = state.reports.take();
  if (watchdog.fired() && !has_check(outcome.reports, report::CheckId::watchdog_timeout))
    outcome.reports.push_back(timeout_between_threadgroups(request, watchdog_seconds));
  for (report::Report& r : outcome.reports) {
    if (!r.site_trace.empty()) report::name_user_site(r, r.site_trace);
    if (!r.other_trace.empty()) r.other_site = report::symbolize_user(r.other_trace).site;
  }
  // A warning (barrier.exited) lets the dispatch complete, its report kept, unless strict.
  outcome.ok =
      request.options.strict ? outcome.reports.empty() : !report::any_error(outcome.reports);
  outcome.log = state.log.take();
  return outcome;
}

}  // namespace metalsim::engine
