#include "kernels/trellis/trellis_baseline.h"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace metalsim::kernels::trellis {
namespace {

// Maps over std::vector storage only (the header says why).
using MatrixXfR = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapR = Eigen::Map<MatrixXfR>;
using ConstMapR = Eigen::Map<const MatrixXfR>;

std::vector<float> widened(std::span<const half_t> v) {
  std::vector<float> out(v.size());
  spec::baseline::widen(v.data(), out.data(), v.size());
  return out;
}

// Expert e's [K, N] weights, as the reference dequantizes them (exact, then half).
std::vector<float> dense_weights(const TrellisWeights& w, uint32_t e) {
  const uint32_t K = w.shape.K, N = w.shape.N;
  std::vector<float> out(size_t(K) * N);
#pragma omp parallel for schedule(static)
  for (uint32_t k = 0; k < K; ++k)
    for (uint32_t n = 0; n < N; ++n) out[size_t(k) * N + n] = dequantized_weight(w, e, k, n);
  return out;
}

// One expert's [K, N] weights as a baseline reads them: dense rows (Decode::once) or the trellis
// format itself (Decode::on_the_fly).
struct WeightsView {
  const float* dense = nullptr;
  const TrellisWeights* packed = nullptr;
  uint32_t expert = 0;
};

constexpr Eigen::Index kColumns = 64;  // per task: enough work, and tasks for every thread
constexpr uint32_t kPanelRows = 256;   // rows decoded at a time: 64 KiB of floats, in L2

// grid indexed by every index the bits can hold, those >= n_levels reading grid[0] (the clamp of
// dequantized_weight), so decoding needs no branch.
std::array<float, 16> levels_of(const TrellisWeights& w) {
  std::array<float, 16> levels{};
  for (uint32_t i = 0; i < (1u << w.shape.bits); ++i)
    levels[i] = w.grid[i < w.shape.n_levels ? i : 0];
  return levels;
}

// Rows [k0, k0 + rows) x columns [n0, n0 + width) of expert e into `panel` (row-major, `width`
// per row), each weight as dequantized_weight gives it: the same float products in the same
// order, rounded to half. n0 is a multiple of the tile width. Bits is a template argument so that
// a tile row's 16 shifts are constants.
template <uint32_t kBits>
void decode_panel(const TrellisWeights& w, uint32_t e, const std::array<float, 16>& levels,
                  uint32_t k0, uint32_t rows, uint32_t n0, uint32_t width, float* panel) {
  static_assert(std::endian::native == std::endian::little, "LSB-first bits read as one word");
  constexpr uint32_t kMask = (1u << kBits) - 1, kRowBytes = kTileDim * kBits / 8;
  const TrellisShape& s = w.shape;
  const size_t tile_bytes = s.packed_bytes();
  const uint8_t* packed = w.packed_of(e);
  const float *scales = w.scales_of(e), *su = w.su_of(e), *sv = w.sv_of(e);
  float level[kColumns];  // one row's grid values (width <= kColumns)
  half_t rounded[kColumns];
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t k = k0 + r;
    const float* scale = scales + size_t(k / s.group_size) * s.N;
    const float row_sign = su[k];
    float* out = panel + size_t(r) * width;
    // Row k of the tiles along n: one tile apart; a tile row's 16 indices start on a byte boundary
    // and span 16 * bits <= 64 bits.
    const TileAddress first = tile_address(s, k, n0);
    const uint8_t* tile_row = packed + first.tile_offset + first.idx_in_tile * kBits / 8;
    for (uint32_t j = 0; j < width; j += kTileDim, tile_row += tile_bytes) {
      uint64_t word = 0;
      std::memcpy(&word, tile_row, kRowBytes);
      const uint32_t count = std::min(kTileDim, width - j);
      for (uint32_t i = 0; i < count; ++i) level[j + i] = levels[(word >> (i * kBits)) & kMask];
    }
    // The same float products in the same order as dequantized_weight, eight at a time.
    const float* scale_row = scale + n0;
    const float* sign_col = sv + n0;
    for (uint32_t j = 0; j < width; ++j) out[j] = level[j] * scale_row[j] * row_sign * sign_col[j];
    // Rounded to half, as the kernel stages them (F16C, eight at a time).
    spec::baseline::narrow(out, rounded, width);
    spec::baseline::widen(rounded, out, width);
  }
}

void decode_panel(const TrellisWeights& w, uint32_t e, const std::array<float, 16>& levels,
                  uint32_t k0, uint32_t rows, uint32_t n0, uint32_t width, float* panel) {
  switch (w.shape.bits) {
    case 2: return decode_panel<2>(w, e, levels, k0, rows, n0, width, panel);
    case 3: return decode_panel<3>(w, e, levels, k0, rows, n0, width, panel);
    default: return decode_panel<4>(w, e, levels, k0, rows, n0, width, panel);  // 2-4 only
  }
}

// c = a x w over column blocks of w, one block per task; on the fly, each block's weights are
// decoded a panel of rows at a time and multiplied while still in cache.
void product(const ConstMapR& a, const WeightsView& w, MapR c) {
  const Eigen::Index n = c.cols(), k = a.cols(), tasks = (n + kColumns - 1) / kColumns;
  const std::array<float, 16> levels = w.packed ? levels_of(*w.packed) : std::array<float, 16>{};
#pragma omp parallel for schedule(static)
  for (Eigen::Index t = 0; t < tasks; ++t) {
    const Eigen::Index first = t * kColumns, width = std::min(kColumns, n - first);
    auto block = c.middleCols(first, width);
    if (w.dense) {
      block.noalias() = a * ConstMapR(w.dense, k, n).middleCols(first, width);
      continue;
    }
    std::vector<float> panel(size_t(kPanelRows) * size_t(width));
    for (Eigen::Index k0 = 0; k0 < k; k0 += kPanelRows) {
      const Eigen::Index rows = std::min<Eigen::Index>(kPanelRows, k - k0);
      decode_panel(*w.packed, w.expert, levels, uint32_t(k0), uint32_t(rows), uint32_t(first),
                   uint32_t(width), panel.data());
      const ConstMapR decoded(panel.data(), rows, width);
      if (k0 == 0) block.noalias() = a.middleCols(k0, rows) * decoded;
      else block.noalias() += a.middleCols(k0, rows) * decoded;
    }
  }
}

}  // namespace

GemmBaselineData prepare_gemm_baseline(std::span<const half_t> a, uint32_t M,
                                       const TrellisWeights& weights, Decode decode) {
  GemmBaselineData d;
  d.M = M;
  d.K = weights.shape.K;
  d.N = weights.shape.N;
  d.a = widened(a);
  if (decode == Decode::once) d.w = dense_weights(weights, 0);
  else d.packed = &weights;
  d.c.assign(size_t(M) * d.N, 0.0f);
  return d;
}

void gemm_baseline(GemmBaselineData& d) {
  product(ConstMapR(d.a.data(), d.M, d.K),
          WeightsView{d.w.empty() ? nullptr : d.w.data(), d.packed}, MapR(d.c.data(), d.M, d.N));
}

MoeBaselineData prepare_moe_baseline(const MoeProblem& p, Decode decode) {
  MoeBaselineData d;
  d.shape = p.shape;
  d.routing = p.routing;
  d.x = widened(p.x);
  if (decode == Decode::on_the_fly) d.packed = &p;
  for (uint32_t e = 0; e < p.shape.experts && decode == Decode::once; ++e) {
    d.gate.push_back(dense_weights(p.gate, e));
    d.up.push_back(dense_weights(p.up, e));
    d.down.push_back(dense_weights(p.down, e));
  }
  d.out.assign(size_t(p.shape.M) * p.shape.hidden, 0.0f);
  return d;
}

namespace {
// Expert e of one of the MoE's matrices: its dense copy, or else its trellis weights.
WeightsView weights(const std::vector<std::vector<float>>& dense, const TrellisWeights* packed,
                    uint32_t e) {
  return dense.empty() ? WeightsView{nullptr, packed, e} : WeightsView{dense[e].data(), nullptr, 0};
}
}  // namespace

void moe_baseline(MoeBaselineData& d) {
  const Eigen::Index hidden = d.shape.hidden, inter = d.shape.intermediate;
  const ConstMapR x(d.x.data(), d.shape.M, hidden);
  MapR out(d.out.data(), d.shape.M, hidden);
  out.setZero();
  for (uint32_t e = 0; e < d.shape.experts; ++e) {
    std::vector<uint32_t> rows;
    std::vector<float> probs;
    for (uint32_t i = 0; i < d.routing.expert_ids.size(); ++i)
      if (d.routing.expert_ids[i] == e) {
        rows.push_back(i / d.routing.top_k);
        probs.push_back(d.routing.probs[i]);
      }
    if (rows.empty()) continue;
    // Plain vectors under Eigen maps: no Eigen-owned allocation in this file (see the header).
    const auto count = Eigen::Index(rows.size());
    std::vector<float> xe(size_t(count * hidden)), g(size_t(count * inter)),
        u(size_t(count * inter)), h(size_t(count * inter)), down(size_t(count * hidden));
    MapR xm(xe.data(), count, hidden), gm(g.data(), count, inter), um(u.data(), count, inter),
        hm(h.data(), count, inter), dm(down.data(), count, hidden);
    for (Eigen::Index r = 0; r < count; ++r) xm.row(r) = x.row(rows[size_t(r)]);
    const ConstMapR xc(xe.data(), count, hidden);
    product(xc, weights(d.gate, d.packed ? &d.packed->gate : nullptr, e), gm);
    product(xc, weights(d.up, d.packed ? &d.packed->up : nullptr, e), um);
    hm.array() = gm.array() / (1 + (-gm.array()).exp()) * um.array();
    product(ConstMapR(h.data(), count, inter),
            weights(d.down, d.packed ? &d.packed->down : nullptr, e), dm);
    for (Eigen::Index r = 0; r < count; ++r)
      out.row(rows[size_t(r)]) += probs[size_t(r)] * dm.row(r);
  }
}

}  // namespace metalsim::kernels::trellis
