// Built by scripts/mlx_backend.sh in MLX's own build (issue 26 item 1), linked with MLX's
// libmlx (its Metal backend on metalsim): MLX ops on MLX's GPU device, each result against a
// reference computed here in double from the same inputs (std::mt19937, fixed seed).
//   add       binary_ops through MLX's JIT (newLibrary from source, function constants)
//   rms_norm  mlx.metallib's kernel (metalsim-metal's library, loaded by path)
// Prints one line per op and exits 1 when any is off or throws. Not part of metalsim's build.
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "mlx/backend/metal/metal.h"
#include "mlx/mlx.h"

namespace mx = mlx::core;

namespace {

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The largest |got - want| / max(1, |want|), and whether it is within `tolerance`. `got` has
// want.size() elements (the op's shape).
bool report(const char* what, const mx::array& got, const std::vector<double>& want,
            double tolerance) {
  const float* g = got.data<float>();
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = std::fabs(double(g[i]) - want[i]) / std::fmax(1.0, std::fabs(want[i]));
    worst = std::isnan(e) ? INFINITY : std::fmax(worst, e);
  }
  const bool ok = worst <= tolerance;
  std::printf("%-9s %zu elements: largest error %.3g (tolerance %.3g) %s\n", what, want.size(),
              worst, tolerance, ok ? "ok" : "FAILED");
  return ok;
}

}  // namespace

int main() {
  if (!mx::metal::is_available()) {
    std::printf("MLX's Metal backend is not available\n");
    return 1;
  }
  mx::set_default_device(mx::Device::gpu);
  const auto& info = mx::gpu::device_info(0);
  std::printf("MLX's GPU device: %s (%s)\n", std::get<std::string>(info.at("device_name")).c_str(),
              std::get<std::string>(info.at("architecture")).c_str());
  std::mt19937 rng(2026);
  bool ok = true;
  try {
    // add: one rounding of the float sum.
    const size_t n = 4099;  // not a multiple of a threadgroup
    std::vector<float> a = random_floats(n, rng), b = random_floats(n, rng);
    mx::array x(a.begin(), mx::Shape{int(n)}), y(b.begin(), mx::Shape{int(n)});
    mx::array sum = mx::add(x, y);
    mx::eval(sum);
    std::vector<double> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = double(a[i]) + double(b[i]);
    ok &= report("add", sum, want, 0x1p-24);

    // rms_norm over rows of 1000 (float32): the sum of squares (n * 2^-24 relative) and a few
    // roundings of the scale and product.
    const int rows = 8, cols = 1000;
    std::vector<float> r = random_floats(size_t(rows) * cols, rng), w = random_floats(cols, rng);
    mx::array xr(r.begin(), mx::Shape{rows, cols}), wr(w.begin(), mx::Shape{cols});
    const float eps = 1e-5f;
    mx::array normed = mx::fast::rms_norm(xr, std::optional<mx::array>(wr), eps);
    mx::eval(normed);
    std::vector<double> want_norm(r.size());
    for (int i = 0; i < rows; ++i) {
      double ss = 0;
      for (int j = 0; j < cols; ++j) ss += double(r[i * cols + j]) * r[i * cols + j];
      const double scale = 1.0 / std::sqrt(ss / cols + eps);
      for (int j = 0; j < cols; ++j) want_norm[i * cols + j] = r[i * cols + j] * scale * w[j];
    }
    ok &= report("rms_norm", normed, want_norm, (cols + 8) * 0x1p-24);
  } catch (const std::exception& e) {
    std::printf("MLX threw: %s\n", e.what());
    return 1;
  }
  return ok ? 0 : 1;
}
