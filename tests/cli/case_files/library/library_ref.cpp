// References for the library-shaped case files (soft_max_*.json, gemv_axpby.json), in double,
// written from the kernels' specifications rather than their code: each recomputes what the host
// code computes (the scale, ALiBi's slopes, alpha and beta) from the parameters on its own.
#include <metalsim/case_reference.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

double param(const metalsim_case* c, const char* name) {
  return double(metalsim_case_param(c, name));
}

// ALiBi's slope of head h of n (Press et al.): with p the largest power of two <= n, heads below
// p take 2^(-8/p)^(h+1), the others 2^(-4/p)^(2(h-p)+1); max_bias scales the 8.
double alibi_slope(double max_bias, int64_t h, int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  if (h < p) return std::pow(2.0, -max_bias * double(h + 1) / double(p));
  return std::pow(2.0, -max_bias / 2.0 * double(2 * (h - p) + 1) / double(p));
}

}  // namespace

// softmax over each row of scale * x + slope * mask (mask: when given; rows past `mask_pad`
// rows of its buffer), with causal masking and attention sinks (when given).
extern "C" int lsim_soft_max_ref(const metalsim_case* c) {
  const metalsim_case_buffer* x = metalsim_case_buffer_named(c, "src0");
  const metalsim_case_buffer* mask = metalsim_case_buffer_named(c, "mask");
  const metalsim_case_buffer* sinks = metalsim_case_buffer_named(c, "sinks");
  const metalsim_case_buffer* y = metalsim_case_buffer_named(c, "dst");
  if (x == nullptr || y == nullptr) return 1;
  const int64_t ne00 = metalsim_case_param(c, "ne00"), ne01 = metalsim_case_param(c, "ne01"),
                ne02 = metalsim_case_param(c, "ne02");
  const bool causal = metalsim_case_param(c, "causal") != 0;
  const double max_bias = param(c, "max_bias_x4") / 4.0;
  const double scale = 1.0 / std::sqrt(double(ne00));
  const double* mask_rows =
      mask != nullptr ? mask->data + metalsim_case_param(c, "mask_pad") * ne00 : nullptr;
  std::vector<double> s(size_t(ne00), 0.0);
  for (int64_t h = 0; h < ne02; ++h) {
    const double slope = max_bias > 0 ? alibi_slope(max_bias, h, ne02) : 1.0;
    for (int64_t i = 0; i < ne01; ++i) {
      const double* row = x->data + (h * ne01 + i) * ne00;
      double top = -INFINITY;
      for (int64_t j = 0; j < ne00; ++j) {
        s[j] = row[j] * scale + (mask_rows ? slope * mask_rows[i * ne00 + j] : 0.0);
        if (causal && j > i + ne00 - ne01) s[j] = -INFINITY;
        top = std::max(top, s[j]);
      }
      if (sinks != nullptr) top = std::max(top, sinks->data[h]);
      double sum = sinks != nullptr ? std::exp(sinks->data[h] - top) : 0.0;
      for (int64_t j = 0; j < ne00; ++j) sum += std::exp(s[j] - top);
      for (int64_t j = 0; j < ne00; ++j)
        y->data[(h * ne01 + i) * ne00 + j] = std::exp(s[j] - top) / sum;
    }
  }
  return 0;
}

// y = clamp((alpha W x + beta y + bias[r % 3]) * mul + add, lo, hi), relu'd when asked; W starts
// `skip` rows into its buffer; alpha = 1/sqrt(K) (MLX's attention scale), beta = beta_x4 / 4.
extern "C" int lsim_gemv_ref(const metalsim_case* c) {
  const metalsim_case_buffer* w = metalsim_case_buffer_named(c, "W");
  const metalsim_case_buffer* x = metalsim_case_buffer_named(c, "x");
  const metalsim_case_buffer* y = metalsim_case_buffer_named(c, "y");
  if (w == nullptr || x == nullptr || y == nullptr) return 1;
  const int64_t m = metalsim_case_param(c, "M"), k = metalsim_case_param(c, "K");
  const int64_t ld = k + metalsim_case_param(c, "pad");
  const double* rows = w->data + metalsim_case_param(c, "skip") * ld;
  const double alpha = 1.0 / std::sqrt(double(k));
  const double beta = metalsim_case_param(c, "axpby") ? param(c, "beta_x4") / 4.0 : 0.0;
  const double bias[3] = {0.25, -0.5, 0.125};
  for (int64_t r = 0; r < m; ++r) {
    double dot = 0;
    for (int64_t j = 0; j < k; ++j) dot += rows[r * ld + j] * x->data[j];
    double v = alpha * dot + beta * y->data[r] + bias[r % 3];
    v = std::clamp(v * 2.0 - 0.0625, -3.0, 3.0);
    if (metalsim_case_param(c, "relu")) v = std::max(v, 0.0);
    y->data[r] = v;
  }
  return 0;
}
