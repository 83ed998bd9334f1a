#include "kernels/elementwise/elementwise_ref.h"

#include <Eigen/Core>
#include <cmath>

namespace metalsim::kernels::elementwise {
namespace {

using ArrayD = Eigen::ArrayXd;

ArrayD to_array(const std::vector<half_t>& v) {
  ArrayD a(Eigen::Index(v.size()));
  for (size_t i = 0; i < v.size(); ++i) a[Eigen::Index(i)] = double(v[i]);
  return a;
}

std::vector<double> to_vector(const ArrayD& a) { return {a.data(), a.data() + a.size()}; }

ArrayD silu(const ArrayD& x) { return x / (1.0 + (-x).exp()); }

}  // namespace

// ------------------------------ activations
std::vector<double> silu_ref(const std::vector<half_t>& x) { return to_vector(silu(to_array(x))); }

std::vector<double> gelu_ref(const std::vector<half_t>& x) {
  const ArrayD v = to_array(x);
  const double k = std::sqrt(2.0 / M_PI);
  return to_vector(0.5 * v * (1.0 + (k * (v + 0.044715 * v.cube())).tanh()));
}

std::vector<double> multiply_ref(const std::vector<half_t>& a, const std::vector<half_t>& b) {
  return to_vector(to_array(a) * to_array(b));
}

std::vector<double> swiglu_ref(const std::vector<half_t>& gate, const std::vector<half_t>& up) {
  return to_vector(silu(to_array(gate)) * to_array(up));
}

// ------------------------------ rms_norm
std::vector<double> rms_norm_ref(const std::vector<half_t>& x, const std::vector<half_t>& weight,
                                 int64_t rows, int64_t hidden_dim, double eps, double weight_offset) {
  const ArrayD all = to_array(x);
  const ArrayD w = to_array(weight) + weight_offset;
  ArrayD out(all.size());
  for (int64_t r = 0; r < rows; ++r) {
    const auto row = all.segment(r * hidden_dim, hidden_dim);
    const double inv_rms = 1.0 / std::sqrt(row.square().mean() + eps);
    out.segment(r * hidden_dim, hidden_dim) = row * inv_rms * w;
  }
  return to_vector(out);
}

// ------------------------------ rope
std::vector<double> rope_ref(const std::vector<half_t>& x, int64_t seq_len, int64_t heads,
                             int64_t head_dim, int64_t position_offset, double theta_base) {
  const ArrayD in = to_array(x);
  ArrayD out = in;
  const int64_t half_dim = head_dim / 2;
  for (int64_t s = 0; s < seq_len; ++s)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = (s * heads + h) * head_dim;
      for (int64_t d = 0; d < half_dim; ++d) {
        const double freq = std::pow(theta_base, -double(2 * d) / double(head_dim));
        const double angle = double(s + position_offset) * freq;
        const double re = in[base + d], im = in[base + d + half_dim];
        out[base + d] = re * std::cos(angle) - im * std::sin(angle);
        out[base + d + half_dim] = re * std::sin(angle) + im * std::cos(angle);
      }
    }
  return to_vector(out);
}

}  // namespace metalsim::kernels::elementwise
