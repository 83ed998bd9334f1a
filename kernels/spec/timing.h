#pragma once
// What every benchmark of a prepared case shares (bench/kernels_bench.cpp, metalsim bench): the
// wall time of one call, and the median of repeated times (one slow run on a shared machine does
// not move it).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace metalsim::spec {

template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// NaN for no times.
inline double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace metalsim::spec
