// The engine's costs: a threadgroup_barrier per lane (256 and 1024 lanes), a simd collective
// per lane, an empty threadgroup, and a barrier-free kernel against the same loop in plain C++.
// The floor under the barrier: a ring of fibers on the engine's stacks, each switching straight
// to the next (one Boost.Context jump per lane, no bookkeeping).
// Run: build/release/bench/engine_bench --benchmark_repetitions=5
// --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <vector>

#include "kernels/spec/case_runner.h"
#include "simt/fiber/fiber.h"

namespace metalsim::bench {
namespace {

constexpr uint32_t kSyncsPerLane = 256;  // as engine_bench.metal

inline float silu(float v) { return v / (1.0f + std::exp(-v)); }

// A dispatch context with no checks on `workers` threads (0: every core).
std::unique_ptr<spec::CaseContext> plain_context(uint32_t workers) {
  metalsim::ExecutionOptions o;
  o.workers = workers;
  o.checks = metalsim::CheckSet::none();
  return spec::CaseRunner::shared().context(o, 1);
}

void no_arguments(MTL::ComputeCommandEncoder*) {}

// One worker: the per-lane cost of the engine itself, without parallel speed-up.
void BM_ThreadgroupBarrier(benchmark::State& state) {
  auto h = plain_context(1);
  const uint32_t lanes = uint32_t(state.range(0));
  for (auto _ : state) h->run("bench_barriers", no_arguments, {4, 1, 1}, {lanes, 1, 1});
  const double lane_barriers = double(state.iterations()) * 4 * lanes * kSyncsPerLane;
  state.counters["ns_per_lane_barrier"] =
      benchmark::Counter(lane_barriers, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ThreadgroupBarrier)->Arg(32)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_SimdSum(benchmark::State& state) {
  auto h = plain_context(1);
  auto sink = h->buffer(4);
  for (auto _ : state)
    h->run("bench_simd_sum", [&](auto* e) { e->setBuffer(sink.get(), 0, 0); }, {4, 1, 1},
           {256, 1, 1});
  const double lane_ops = double(state.iterations()) * 4 * 256 * kSyncsPerLane;
  state.counters["ns_per_lane_simd_sum"] =
      benchmark::Counter(lane_ops, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SimdSum)->Unit(benchmark::kMillisecond);

void BM_EmptyThreadgroup(benchmark::State& state) {
  auto h = plain_context(1);
  const uint32_t groups = 4096, lanes = uint32_t(state.range(0));
  for (auto _ : state) h->run("bench_empty", no_arguments, {groups, 1, 1}, {lanes, 1, 1});
  state.counters["ns_per_threadgroup"] =
      benchmark::Counter(double(state.iterations()) * groups,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EmptyThreadgroup)->Arg(1)->Arg(256)->Unit(benchmark::kMillisecond);

// An empty dispatch through the host API (command buffer, encoder, commit, wait): `groups`
// threadgroups of one lane, on `workers` threads (0: every core; never more than the
// threadgroups), on fibers (loops 0) or in lane loops (loops 1). What a short dispatch costs
// before any kernel work (issue 10 item 6): with one threadgroup, the host path and the engine's
// set-up on one worker; with 64, also the fork and join of every worker.
void BM_EmptyDispatch(benchmark::State& state) {
  auto h = plain_context(uint32_t(state.range(0)));
  h->mutable_options().mode =
      state.range(1) ? metalsim::ExecutionMode::loops : metalsim::ExecutionMode::fibers;
  const uint32_t groups = uint32_t(state.range(2));
  for (auto _ : state) h->run("bench_empty", no_arguments, {groups, 1, 1}, {1, 1, 1});
}
BENCHMARK(BM_EmptyDispatch)
    ->ArgNames({"workers", "loops", "groups"})
    ->ArgsProduct({{1, 0}, {0, 1}, {1, 64}})
    ->Unit(benchmark::kMicrosecond);

// The same with a watchdog limit (60 s, never reached), as `metalsim check` and `fuzz` run every
// dispatch: what arming and disarming the watchdog adds.
void BM_EmptyDispatchWatchdog(benchmark::State& state) {
  auto h = plain_context(uint32_t(state.range(0)));
  h->mutable_options().mode =
      state.range(1) ? metalsim::ExecutionMode::loops : metalsim::ExecutionMode::fibers;
  h->mutable_options().watchdog_seconds = 60;
  const uint32_t groups = uint32_t(state.range(2));
  for (auto _ : state) h->run("bench_empty", no_arguments, {groups, 1, 1}, {1, 1, 1});
}
BENCHMARK(BM_EmptyDispatchWatchdog)
    ->ArgNames({"workers", "loops", "groups"})
    ->ArgsProduct({{1, 0}, {0, 1}, {1, 64}})
    ->Unit(benchmark::kMicrosecond);

// Emulated silu over n floats against the same loop in plain C++, both on `workers` threads
// (the native loop with OpenMP). Reports ratio = emulated / native, measured in this run.
void BM_BarrierFreeVsNative(benchmark::State& state) {
  const uint32_t n = 1u << 22;
  const int workers = int(state.range(0));
  auto h = plain_context(uint32_t(workers));
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(int(i % 2001) - 1000) / 100.0f;
  auto xb = h->buffer(x);
  auto yb = h->buffer(size_t(n) * 4);
  std::vector<float> y(n);
  double emulated = 0, native = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    h->run(
        "bench_silu",
        [&](auto* e) {
          e->setBuffer(xb.get(), 0, 0);
          e->setBuffer(yb.get(), 0, 1);
        },
        {n, 1, 1}, {256, 1, 1}, spec::CaseContext::Grid::threads);
    auto t1 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(workers) schedule(static)
    for (uint32_t i = 0; i < n; ++i) y[i] = silu(x[i]);
    auto t2 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(y.data());
    emulated += std::chrono::duration<double>(t1 - t0).count();
    native += std::chrono::duration<double>(t2 - t1).count();
  }
  state.counters["emulated_ms"] = emulated * 1e3 / double(state.iterations());
  state.counters["native_ms"] = native * 1e3 / double(state.iterations());
  state.counters["ratio"] = emulated / native;
}
// The ring: fiber i switches to fiber i+1; the last suspends to the scheduler, which resumes
// fiber 0 for the next round. Stacks from the engine's pool (default size, guard page, colour).
struct SwitchRing {
  std::vector<fiber::Fiber> fibers;
  bool stop = false;
  static SwitchRing* self;
  static void body(void* arg) {
    const size_t i = reinterpret_cast<size_t>(arg);
    std::vector<fiber::Fiber>& f = self->fibers;
    while (!self->stop) {
      if (i + 1 < f.size()) f[i].switch_to(f[i + 1]);
      else f[i].suspend();
    }
  }
};
SwitchRing* SwitchRing::self = nullptr;

void BM_FiberSwitchFloor(benchmark::State& state) {
  fiber::StackPool pool(fiber::default_stack_bytes());
  SwitchRing ring;
  SwitchRing::self = &ring;
  ring.fibers.resize(size_t(state.range(0)));
  for (size_t i = 0; i < ring.fibers.size(); ++i)
    ring.fibers[i].start(pool.acquire(), &SwitchRing::body, reinterpret_cast<void*>(i));
  for (auto _ : state) ring.fibers[0].resume();
  ring.stop = true;
  for (fiber::Fiber& f : ring.fibers) {  // let every fiber leave its loop and return
    while (!f.finished()) f.resume();
    pool.release(f.stack());
  }
  state.counters["ns_per_lane_switch"] =
      benchmark::Counter(double(state.iterations()) * double(ring.fibers.size()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FiberSwitchFloor)->Arg(256)->Arg(1024);

// Workers 1..16: on a machine with fewer cores, filter (--benchmark_filter='/[12]/').
BENCHMARK(BM_BarrierFreeVsNative)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace metalsim::bench

BENCHMARK_MAIN();
