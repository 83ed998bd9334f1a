// metalsim's written-out sin and cos (simt/include/detail/trig.h) against glibc's sinf and
// sincosf: 4096 arguments per iteration, uniform in [-R, R] for R = pi, 100, 1e6 (past the
// Cody-Waite range) and 1e30 (the chunk sum's far windows), compiled as kernels are (the kernel
// compiler and flags). Per element: the items_per_second counter. "vectorized" is a loop the
// vectorizer turns into 8-wide code (a lane loop's body); "scalar" is the same loop with
// vectorization off (the fibers' path, or a lane loop kept scalar by something else);
// "rope" is rope's use, a cos and a sin of one angle. docs/lanes.md ("Calls to libm") has figures.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include <metal_stdlib>

namespace {

constexpr int kCount = 4096;

std::vector<float> arguments(float range) {
  std::mt19937 rng(20261128u);
  std::uniform_real_distribution<float> dist(-range, range);
  std::vector<float> x(kCount);
  for (float& v : x) v = dist(rng);
  return x;
}

[[gnu::noinline]] void sin_vectorized(const float* __restrict x, float* __restrict y) {
  for (int i = 0; i < kCount; ++i) y[i] = metal::sin(x[i]);
}
[[gnu::noinline]] void sin_scalar(const float* __restrict x, float* __restrict y) {
#pragma clang loop vectorize(disable) interleave(disable)
  for (int i = 0; i < kCount; ++i) y[i] = metal::sin(x[i]);
}
[[gnu::noinline]] void sin_glibc(const float* __restrict x, float* __restrict y) {
  for (int i = 0; i < kCount; ++i) y[i] = sinf(x[i]);
}
[[gnu::noinline]] void rope_vectorized(const float* __restrict x, float* __restrict y) {
  for (int i = 0; i < kCount; ++i) y[i] = 3.0f * metal::cos(x[i]) - 2.0f * metal::sin(x[i]);
}
[[gnu::noinline]] void rope_scalar(const float* __restrict x, float* __restrict y) {
#pragma clang loop vectorize(disable) interleave(disable)
  for (int i = 0; i < kCount; ++i) y[i] = 3.0f * metal::cos(x[i]) - 2.0f * metal::sin(x[i]);
}
[[gnu::noinline]] void rope_glibc(const float* __restrict x, float* __restrict y) {
  for (int i = 0; i < kCount; ++i) y[i] = 3.0f * cosf(x[i]) - 2.0f * sinf(x[i]);
}

template <void (*kLoop)(const float* __restrict, float* __restrict)>
void run(benchmark::State& state) {
  constexpr float kRange[] = {3.14159265f, 100.0f, 1e6f, 1e30f};
  const std::vector<float> x = arguments(kRange[state.range(0)]);
  std::vector<float> y(kCount);
  for (auto _ : state) {
    kLoop(x.data(), y.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kCount);
}

// The argument picks R: 0 pi, 1 100, 2 1e6, 3 1e30.
#define TRIG_BENCH(name) BENCHMARK(run<name>)->Name(#name)->DenseRange(0, 3)
TRIG_BENCH(sin_vectorized);
TRIG_BENCH(sin_scalar);
TRIG_BENCH(sin_glibc);
TRIG_BENCH(rope_vectorized);
TRIG_BENCH(rope_scalar);
TRIG_BENCH(rope_glibc);

}  // namespace

BENCHMARK_MAIN();
