#include "kernels/multi_token_matvec/multi_token_matvec_ref.h"

#include <Eigen/Core>

namespace metalsim::kernels::multi_token_matvec {

std::vector<double> multi_token_matvec_ref(const std::vector<BlockQ4_0>& weight,
                                           const std::vector<float>& input,
                                           const std::vector<float>& initial, int64_t out_dim,
                                           int64_t in_dim, int64_t batch) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t blocks = in_dim / 32;
  Matrix w(out_dim, in_dim), x(batch, in_dim);
  for (int64_t r = 0; r < out_dim; ++r)
    formats::dequantize(weight.data() + r * blocks, in_dim, w.row(r).data());
  for (int64_t i = 0; i < batch * in_dim; ++i) x.data()[i] = double(input[size_t(i)]);
  Matrix out = x * w.transpose();
  if (!initial.empty())
    for (int64_t i = 0; i < batch * out_dim; ++i) out.data()[i] += double(initial[size_t(i)]);
  return {out.data(), out.data() + out.size()};
}

}  // namespace metalsim::kernels::multi_token_matvec
