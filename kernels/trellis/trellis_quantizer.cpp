#include "kernels/trellis/trellis_quantizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/spec/inputs.h"

namespace metalsim::kernels::trellis {

std::vector<float> make_grid(uint32_t bits) {
  const uint32_t levels = 1u << bits, half_levels = levels / 2;
  std::vector<float> grid(levels);
  for (uint32_t i = 0; i < levels; ++i)
    grid[i] = float(int32_t(i) - int32_t(half_levels - 1)) / float(half_levels);
  return grid;
}

uint32_t nearest_level(const std::vector<float>& grid, float x) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < grid.size(); ++i)
    if (std::fabs(x - grid[i]) < std::fabs(x - grid[best])) best = i;
  return best;
}

namespace {

std::vector<float> random_signs(spec::InputGenerator& gen, size_t n) {
  std::vector<float> signs(n);
  for (float& s : signs) s = (gen.next_u64() >> 63) ? -1.0f : 1.0f;
  return signs;
}

// One expert: scales and packed indices of W [K, N] given its signs.
void quantize_expert(const float* w, const float* su, const float* sv, const TrellisShape& shape,
                     const std::vector<float>& grid, const std::function<uint32_t()>& padding,
                     float* scales, uint8_t* packed) {
  const uint32_t K = shape.K, N = shape.N;
  auto target = [&](uint32_t k, uint32_t n) { return w[size_t(k) * N + n] * su[k] * sv[n]; };
  std::vector<uint8_t> indices(size_t(K) * N);
  const uint32_t zero_level = nearest_level(grid, 0.0f);
  for (uint32_t g = 0; g < shape.n_groups(); ++g) {
    const uint32_t k0 = g * shape.group_size, k1 = std::min(K, k0 + shape.group_size);
    for (uint32_t n = 0; n < N; ++n) {
      float scale = 0;
      for (uint32_t k = k0; k < k1; ++k)
        if (std::fabs(target(k, n)) > std::fabs(scale)) scale = target(k, n);
      scales[size_t(g) * N + n] = scale;
      for (uint32_t k = k0; k < k1; ++k)
        indices[size_t(k) * N + n] =
            uint8_t(scale == 0 ? zero_level : nearest_level(grid, target(k, n) / scale));
    }
  }
  const std::vector<uint8_t> bytes = pack_indices(shape, indices, padding);
  std::copy(bytes.begin(), bytes.end(), packed);
}

}  // namespace

TrellisWeights quantize(std::span<const float> dense, uint32_t K, uint32_t N, uint32_t experts,
                        const QuantizerOptions& options) {
  TrellisWeights w;
  w.shape = {K, N, options.bits, options.group_size, 1u << options.bits, experts};
  const TrellisShape& s = w.shape;
  if (options.bits < 2 || options.bits > 4 || K == 0 || N == 0 || experts == 0 ||
      options.group_size == 0)
    throw std::invalid_argument(
        "quantize: bits " + std::to_string(options.bits) + ", K " + std::to_string(K) + ", N " +
        std::to_string(N) + ", experts " + std::to_string(experts) + ", group_size " +
        std::to_string(options.group_size) + ": bits must be 2..4, the others >= 1");
  if (dense.size() != size_t(experts) * K * N)
    throw std::invalid_argument("quantize: " + std::to_string(dense.size()) + " values for " +
                                std::to_string(experts) + " x " + std::to_string(K) + " x " +
                                std::to_string(N));
  w.grid = make_grid(s.bits);
  spec::InputGenerator gen(options.sign_seed);
  w.su = random_signs(gen, size_t(experts) * K);
  w.sv = random_signs(gen, size_t(experts) * N);
  w.packed.assign(experts * s.packed_per_expert(), 0);
  w.scales.assign(experts * s.scales_per_expert(), 0.0f);
  w.packed_dims = {s.tiles_k(), s.tiles_n(), s.packed_bytes()};
  w.scales_dims = {s.n_groups(), s.N};
  for (uint32_t e = 0; e < experts; ++e)
    quantize_expert(dense.data() + size_t(e) * K * N, w.su_of(e), w.sv_of(e), s, w.grid,
                    options.padding, w.scales.data() + e * s.scales_per_expert(),
                    w.packed.data() + e * s.packed_per_expert());
  return w;
}

}  // namespace metalsim::kernels::trellis
