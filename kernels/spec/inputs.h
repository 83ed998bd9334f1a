#pragma once
// Input generators: the same seed gives the same inputs on every machine (no std::
// distributions, whose output is implementation-defined).
#include <cmath>
#include <cstdint>
#include <vector>

namespace metalsim::spec {

class InputGenerator {
 public:
  explicit InputGenerator(uint64_t seed)
      : state_(seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) {}

  uint64_t next_u64() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * double(next_u64() >> 11) * 0x1.0p-53;
  }
  int64_t integer(int64_t lo, int64_t hi) {
    return lo + int64_t(next_u64() % uint64_t(hi - lo + 1));
  }
  double normal() {  // Box-Muller
    double u1 = uniform(1e-12, 1.0), u2 = uniform(0.0, 1.0);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  template <class T>
  std::vector<T> uniform_vector(size_t n, double lo, double hi) {
    std::vector<T> v(n);
    for (T& x : v) x = T(uniform(lo, hi));
    return v;
  }

 private:
  uint64_t state_;
};

}  // namespace metalsim::spec
