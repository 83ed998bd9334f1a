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

// The bound of |got - ref| for `n` reference values under `tol`: abs + rel * max |ref|.
template <class R>
double tolerance_bound(const R* ref, size_t n, const Tolerance& tol) {
  double scale = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(double(ref[i]))) scale = std::fmax(scale, std::fabs(double(ref[i])));
  return tol.abs + tol.rel * scale;
}

// Compares element `i` of output `name`, `got` against `ref` within `bound`; folds into `result`.
template <class T>
void compare_element(const std::string& name, size_t i, const T& got, double ref, double bound,
                     CaseResult& result) {
  ++result.elements;
  if (is_poison(got)) {
    if (result.unwritten++ == 0)
      result.worst = name + "[" + std::to_string(i) + "] was never written";
    return;
  }
  const double g = double(got), r = ref;
  if (!std::isfinite(g) && !(g == r)) {  // inf == inf is fine; NaN never is
    if (result.non_finite++ == 0 && result.unwritten == 0)
      result.worst = name + "[" + std::to_string(i) + "] = " + std::to_string(g) + ", reference " +
                     std::to_string(r);
    return;
  }
  if (g == r) return;
  const double err = bound > 0 ? std::fabs(g - r) / bound : double(INFINITY);
  if (err > result.max_error) {
    result.max_error = err;
    if (result.unwritten == 0 && result.non_finite == 0)
      result.worst = name + "[" + std::to_string(i) + "] = " + std::to_string(g) + ", reference " +
                     std::to_string(r);
  }
}

// Compares `n` elements of output `name` with `ref` under `tol`; folds into `result`.
template <class T, class R>
void compare_output(const std::string& name, const T* got, const R* ref, size_t n,
                    const Tolerance& tol, CaseResult& result) {
  const double bound = tolerance_bound(ref, n, tol);
  for (size_t i = 0; i < n; ++i) compare_element(name, i, got[i], double(ref[i]), bound, result);
}

// Element i's bound when the outputs are float sums that may cancel: abs + rel * the larger of
// max |ref| and magnitude[i], the sum of the magnitudes of the terms that make element i (sum |w
// x| + |old|). A float sum's rounding error grows with that sum, not with the result, which
// cancellation may bring near 0: max |ref| alone understates it when the output is one element
// or a few (docs/kernels/multi_token_matvec.md, "Tolerance").
inline double bound_of_sum(double bound, const Tolerance& tol, double magnitude) {
  return std::fmax(bound, tol.abs + tol.rel * magnitude);
}

// compare_output with each element's bound_of_sum.
template <class T, class R>
void compare_output_of_sums(const std::string& name, const T* got, const R* ref,
                            const std::vector<double>& magnitude, size_t n, const Tolerance& tol,
                            CaseResult& result) {
  const double bound = tolerance_bound(ref, n, tol);
  for (size_t i = 0; i < n; ++i)
    compare_element(name, i, got[i], double(ref[i]), bound_of_sum(bound, tol, magnitude[i]),
                    result);
}

// An in-place kernel's output cannot be poisoned (it holds the input). An element still holding
// its input bits was never written, or was written with its input's value. It is compared as
// never written when its input is not an acceptable output (outside the tolerance of the
// reference): no correct kernel could have left it so. When the input is itself acceptable the
// two cannot be told apart, and the element passes: a value that rounds back to its input is
// never a false failure (docs/checks.md names the miss). T: half or float.
// `magnitude`, when given, bounds each element as compare_output_of_sums does.
template <class T>
void compare_in_place(const std::string& name, const T* got, const std::vector<T>& original,
                      const std::vector<double>& ref, const Tolerance& tol, CaseResult& r,
                      const std::vector<double>* magnitude = nullptr) {
  const double bound = tolerance_bound(ref.data(), ref.size(), tol);
  std::vector<T> seen(got, got + original.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    const double input = double(original[i]);
    const double element_bound =
        magnitude != nullptr ? bound_of_sum(bound, tol, (*magnitude)[i]) : bound;
    const bool acceptable = input == ref[i] || std::fabs(input - ref[i]) <= element_bound;
    if (std::memcmp(&seen[i], &original[i], sizeof(T)) == 0 && !acceptable) poison(&seen[i], 1);
  }
  if (magnitude != nullptr)
    compare_output_of_sums(name, seen.data(), ref.data(), *magnitude, seen.size(), tol, r);
  else compare_output(name, seen.data(), ref.data(), seen.size(), tol, r);
}

// Sets passed and failure from what the comparisons and the command buffer found.
void finish(CaseResult& result);

}  // namespace metalsim::spec
