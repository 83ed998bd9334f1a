#include "kernels/embedding/embedding_ref.h"

#include <Eigen/Core>
#include <cmath>

namespace metalsim::kernels::embedding {
namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::vector<double> gather(const std::vector<uint32_t>& tokens, const Matrix& table, double scale) {
  Matrix out = Matrix::Zero(Eigen::Index(tokens.size()), table.cols());
  for (size_t t = 0; t < tokens.size(); ++t)
    if (tokens[t] < table.rows()) out.row(Eigen::Index(t)) = table.row(tokens[t]) * scale;
  return {out.data(), out.data() + out.size()};
}

}  // namespace

std::vector<double> lookup_f16_ref(const std::vector<uint32_t>& tokens,
                                   const std::vector<half_t>& table, int64_t vocab, int64_t dim,
                                   double scale) {
  Matrix m(vocab, dim);
  for (int64_t i = 0; i < vocab * dim; ++i) m.data()[i] = double(table[size_t(i)]);
  return gather(tokens, m, scale);
}

std::vector<double> lookup_q4_0_ref(const std::vector<uint32_t>& tokens,
                                    const std::vector<BlockQ4_0>& table, int64_t vocab, int64_t dim,
                                    double scale) {
  Matrix m(vocab, dim);
  for (int64_t r = 0; r < vocab; ++r)
    formats::dequantize(table.data() + r * (dim / 32), dim, m.row(r).data());
  return gather(tokens, m, scale);
}

std::vector<double> lookup_q8_0_ref(const std::vector<uint32_t>& tokens,
                                    const std::vector<BlockQ8_0>& table, int64_t vocab, int64_t dim,
                                    double scale) {
  Matrix m(vocab, dim);
  for (int64_t i = 0; i < vocab * dim; ++i) {
    const BlockQ8_0& b = table[size_t(i / 32)];
    m.data()[i] = double(b.qs[i % 32]) * double(b.d);
  }
  return gather(tokens, m, scale);
}

std::vector<uint32_t> argmax_ref(const std::vector<float>& logits, int64_t rows, int64_t cols) {
  std::vector<uint32_t> out(static_cast<size_t>(rows), static_cast<uint32_t>(cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const float v = logits[size_t(r * cols + c)];
      if (std::isnan(v)) continue;
      if (out[size_t(r)] == uint32_t(cols) || v > logits[size_t(r * cols + out[size_t(r)])])
        out[size_t(r)] = uint32_t(c);
    }
  return out;
}

std::string token_errors(const std::vector<uint32_t>& tokens, const uint32_t* status,
                         int64_t vocab) {
  std::string text;
  for (size_t t = 0; t < tokens.size(); ++t)
    if (status[t] != 0)
      text += (text.empty() ? "" : "; ") + std::string("token id ") + std::to_string(tokens[t]) +
              " at position " + std::to_string(t) + " is out of range (vocab " +
              std::to_string(vocab) + ")";
  return text;
}

}  // namespace metalsim::kernels::embedding
