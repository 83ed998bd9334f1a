#include "kernels/multi_token_matvec/multi_token_matvec_ref.h"

#include <cmath>

#include <Eigen/Core>

namespace metalsim::kernels::multi_token_matvec {

namespace {

// initial + input x dequant(W)^T, in double; of the terms' magnitudes when `magnitudes`.
std::vector<double> product(const std::vector<BlockQ4_0>& weight, const std::vector<float>& input,
                            const std::vector<float>& initial, int64_t out_dim, int64_t in_dim,
                            int64_t batch, bool magnitudes) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t blocks = in_dim / 32;
  Matrix w(out_dim, in_dim), x(batch, in_dim);
  for (int64_t r = 0; r < out_dim; ++r)
    formats::dequantize(weight.data() + r * blocks, in_dim, w.row(r).data());
  for (int64_t i = 0; i < batch * in_dim; ++i) x.data()[i] = double(input[size_t(i)]);
  if (magnitudes) {
    w = w.cwiseAbs();
    x = x.cwiseAbs();
  }
  Matrix out = x * w.transpose();
  for (int64_t i = 0; i < int64_t(initial.size()); ++i) {
    const double old = double(initial[size_t(i)]);
    out.data()[i] += magnitudes ? std::fabs(old) : old;
  }
  return {out.data(), out.data() + out.size()};
}

}  // namespace

std::vector<double> multi_token_matvec_ref(const std::vector<BlockQ4_0>& weight,
                                           const std::vector<float>& input,
                                           const std::vector<float>& initial, int64_t out_dim,
                                           int64_t in_dim, int64_t batch) {
  return product(weight, input, initial, out_dim, in_dim, batch, false);
}

std::vector<double> multi_token_matvec_magnitudes(const std::vector<BlockQ4_0>& weight,
                                                  const std::vector<float>& input,
                                                  const std::vector<float>& initial,
                                                  int64_t out_dim, int64_t in_dim, int64_t batch) {
  return product(weight, input, initial, out_dim, in_dim, batch, true);
}

}  // namespace metalsim::kernels::multi_token_matvec
