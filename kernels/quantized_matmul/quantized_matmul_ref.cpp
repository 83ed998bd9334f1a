#include "kernels/quantized_matmul/quantized_matmul_ref.h"

#include <Eigen/Core>

namespace metalsim::kernels::quantized_matmul {
template <class Block>
std::vector<double> matmul_ref(const std::vector<Block>& a, int64_t blocks_per_row,
                               const std::vector<half_t>& b, int64_t m, int64_t n, int64_t k) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix am(m, k), bm(k, n);
  for (int64_t r = 0; r < m; ++r) dequantize(a.data() + r * blocks_per_row, k, am.row(r).data());
  for (int64_t i = 0; i < k * n; ++i) bm.data()[i] = double(b[size_t(i)]);
  const Matrix c = am * bm;
  return {c.data(), c.data() + c.size()};
}

template std::vector<double> matmul_ref(const std::vector<BlockQ4_0>&, int64_t,
                                        const std::vector<half_t>&, int64_t, int64_t, int64_t);
template std::vector<double> matmul_ref(const std::vector<BlockQ8_0>&, int64_t,
                                        const std::vector<half_t>&, int64_t, int64_t, int64_t);
template std::vector<double> matmul_ref(const std::vector<BlockQ4_K>&, int64_t,
                                        const std::vector<half_t>&, int64_t, int64_t, int64_t);
template std::vector<double> matmul_ref(const std::vector<BlockQ5_K>&, int64_t,
                                        const std::vector<half_t>&, int64_t, int64_t, int64_t);

}  // namespace metalsim::kernels::quantized_matmul
