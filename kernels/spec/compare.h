#pragma once
// Output checks shared by every spec: poison before the run, then compare each output with
// its reference. An element still holding the poison bits was never written; a NaN or inf
// where the reference is finite never passes; the worst error is reported relative to the
// family's tolerance.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/spec/spec.h"

namespace metalsim::spec {

using half_t = _Float16;

// NaNs with a recognisable payload: a kernel computing a NaN gets the canonical pattern, not
// these, so "still poison" means "never written".
inline constexpr uint16_t kPoisonHalfBits = 0x7E5A;
inline constexpr uint32_t kPoisonFloatBits = 0x7FC5A5A5u;
inline constexpr uint32_t kPoisonWordBits = 0xA5A5A5A5u;

template <class T>
constexpr uint64_t poison_bits() {
  if constexpr (sizeof(T) == 2) return kPoisonHalfBits;
  else if constexpr (std::is_same_v<T, float>) return kPoisonFloatBits;
  else if constexpr (sizeof(T) == 4) return kPoisonWordBits;
  else return 0xA5A5A5A5A5A5A5A5ull;
}

template <class T>
void poison(T* data, size_t n) {
  const uint64_t bits = poison_bits<T>();
  for (size_t i = 0; i < n; ++i) std::memcpy(&data[i], &bits, sizeof(T));
}

template <class T>
bool is_poison(const T& value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits == poison_bits<T>();
}

// Compares `n` elements of output `name` with `ref` under `tol`; folds into `result`.
template <class T, class R>
void compare_output(const std::string& name, const T* got, const R* ref, size_t n,
                    const Tolerance& tol, CaseResult& result) {
  double scale = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(double(ref[i]))) scale = std::fmax(scale, std::fabs(double(ref[i])));
  const double bound = tol.abs + tol.rel * scale;
  for (size_t i = 0; i < n; ++i) {
    ++result.elements;
    if (is_poison(got[i])) {
      if (result.unwritten++ == 0)
        result.worst = name + "[" + std::to_string(i) + "] was never written";
      continue;
    }
    const double g = double(got[i]), r = double(ref[i]);
    if (!std::isfinite(g) && !(g == r)) {  // inf == inf is fine; NaN never is
      if (result.non_finite++ == 0 && result.unwritten == 0)
        result.worst = name + "[" + std::to_string(i) + "] = " + std::to_string(g) +
                       ", reference " + std::to_string(r);
      continue;
    }
    if (g == r) continue;
    const double err = bound > 0 ? std::fabs(g - r) / bound : double(INFINITY);
    if (err > result.max_error) {
      result.max_error = err;
      if (result.unwritten == 0 && result.non_finite == 0)
        result.worst = name + "[" + std::to_string(i) + "] = " + std::to_string(g) +
                       ", reference " + std::to_string(r);
    }
  }
}

// An in-place kernel's output cannot be poisoned (it holds the input). An element still holding
// its input bits where the reference, rounded to half, differs from the input was never
// written: it is compared as poison. Elements whose correct value equals the input can't be
// told apart, and need not be.
inline void compare_in_place(const std::string& name, const half_t* got,
                             const std::vector<half_t>& original, const std::vector<double>& ref,
                             const Tolerance& tol, CaseResult& r) {
  std::vector<half_t> seen(got, got + original.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    const half_t rounded = half_t(ref[i]);
    if (std::memcmp(&seen[i], &original[i], 2) == 0 && std::memcmp(&rounded, &original[i], 2) != 0)
      poison(&seen[i], 1);
  }
  compare_output(name, seen.data(), ref.data(), seen.size(), tol, r);
}

// Sets passed and failure from what the comparisons and the command buffer found.
void finish(CaseResult& result);

}  // namespace metalsim::spec
