#include "kernels/softmax/softmax_ref.h"

#include <Eigen/Core>
#include <cmath>

namespace metalsim::kernels::softmax {

std::vector<double> softmax_ref(const std::vector<half_t>& x, int64_t rows, int64_t cols) {
  using Matrix = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix m(rows, cols);
  for (int64_t i = 0; i < rows * cols; ++i) m.data()[i] = double(x[size_t(i)]);
  for (int64_t r = 0; r < rows; ++r) {
    const double row_max = m.row(r).maxCoeff();
    if (std::isinf(row_max) && row_max < 0) {
      m.row(r).setZero();
      continue;
    }
    // std::exp, not Eigen's vectorised exp, which clamps -inf to a denormal instead of 0.
    m.row(r) = (m.row(r) - row_max).unaryExpr([](double v) { return std::exp(v); });
    m.row(r) /= m.row(r).sum();
  }
  return {m.data(), m.data() + m.size()};
}

}  // namespace metalsim::kernels::softmax
