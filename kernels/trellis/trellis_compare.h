#pragma once
// Output comparison with a bound per element (a GEMM's error follows sum |a| |w| of that
// element, not the largest output). Same verdicts as spec::compare_output: poison means never
// written, a NaN never passes, the worst error is reported as a multiple of its bound.
#include <cmath>
#include <string>

#include "kernels/spec/compare.h"
#include "kernels/trellis/trellis_ref.h"

namespace metalsim::kernels::trellis {

template <class T>
void compare_bounded(const std::string& name, const T* got, const Reference& ref,
                     spec::CaseResult& result) {
  auto where = [&](size_t i, double g) {
    return name + "[" + std::to_string(i) + "] = " + std::to_string(g) + ", reference " +
           std::to_string(ref.value[i]);
  };
  for (size_t i = 0; i < ref.value.size(); ++i) {
    ++result.elements;
    if (spec::is_poison(got[i])) {
      if (result.unwritten++ == 0)
        result.worst = name + "[" + std::to_string(i) + "] was never written";
      continue;
    }
    const double g = double(got[i]), r = ref.value[i];
    if (!std::isfinite(g) && !(g == r)) {
      if (result.non_finite++ == 0 && result.unwritten == 0) result.worst = where(i, g);
      continue;
    }
    if (g == r) continue;
    const double err = std::fabs(g - r) / ref.bound[i];
    if (err > result.max_error) {
      result.max_error = err;
      if (result.unwritten == 0 && result.non_finite == 0) result.worst = where(i, g);
    }
  }
}

}  // namespace metalsim::kernels::trellis
