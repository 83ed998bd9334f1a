#include "kernels/softmax/softmax_baseline.h"

#include <Eigen/Core>
#include <limits>
#include <vector>

namespace metalsim::kernels::softmax {

using spec::baseline::half_t;

void softmax_baseline(const half_t* x, half_t* out, int64_t rows, int64_t cols) {
#pragma omp parallel
  {
    std::vector<float> buffer(static_cast<size_t>(cols));
    Eigen::Map<Eigen::ArrayXf> row(buffer.data(), cols);
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      spec::baseline::widen(x + r * cols, buffer.data(), size_t(cols));
      const float row_max = row.maxCoeff();
      if (row_max == -std::numeric_limits<float>::infinity()) row.setZero();
      else {
        row = (row - row_max).exp();
        row *= 1.0f / row.sum();
      }
      spec::baseline::narrow(buffer.data(), out + r * cols, size_t(cols));
    }
  }
}

}  // namespace metalsim::kernels::softmax
