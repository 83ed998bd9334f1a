#include "kernels/trellis/trellis_format.h"

#include <stdexcept>

namespace metalsim::kernels::trellis {

uint32_t packed_bytes_per_tile(uint32_t bits) {
  return (kTileSize * bits + 7) / 8;
}

size_t TrellisShape::storage_bytes() const {
  const size_t per_expert = packed_per_expert() + 4 * (scales_per_expert() + K + N);
  return experts * per_expert + 4 * size_t(n_levels);
}

double TrellisShape::bits_per_weight() const {
  return 8.0 * double(storage_bytes()) / (double(experts) * K * N);
}

TileAddress tile_address(const TrellisShape& shape, uint32_t k, uint32_t n) {
  const uint32_t tile_k = k / kTileDim, tile_n = n / kTileDim;
  const uint32_t local_k = k % kTileDim, local_n = n % kTileDim;
  return {(size_t(tile_k) * shape.tiles_n() + tile_n) * shape.packed_bytes(),
          local_k * kTileDim + local_n};
}

// ------------------------------ bits

void pack_index(uint8_t* tile, uint32_t idx_in_tile, uint32_t bits, uint32_t value) {
  const uint32_t mask = (1u << bits) - 1;
  for (uint32_t b = 0; b < bits; ++b) {  // bit by bit: the clearest statement of LSB-first order
    const uint32_t bit = idx_in_tile * bits + b;
    const uint8_t byte_mask = uint8_t(1u << (bit % 8));
    if ((value & mask) >> b & 1u)
      tile[bit / 8] |= byte_mask;
    else
      tile[bit / 8] &= uint8_t(~byte_mask);
  }
}

uint32_t unpack_index(const uint8_t* tile, uint32_t idx_in_tile, uint32_t bits) {
  uint32_t value = 0;
  for (uint32_t b = 0; b < bits; ++b) {
    const uint32_t bit = idx_in_tile * bits + b;
    value |= uint32_t(tile[bit / 8] >> (bit % 8) & 1u) << b;
  }
  return value;
}

std::vector<uint8_t> pack_indices(const TrellisShape& shape, std::span<const uint8_t> indices,
                                  const std::function<uint32_t()>& padding) {
  if (indices.size() != size_t(shape.K) * shape.N)
    throw std::invalid_argument("pack_indices: " + std::to_string(indices.size()) +
                                " indices for K x N = " + std::to_string(shape.K) + " x " +
                                std::to_string(shape.N));
  std::vector<uint8_t> packed(shape.packed_per_expert(), 0);
  for (uint32_t k = 0; k < shape.tiles_k() * kTileDim; ++k)
    for (uint32_t n = 0; n < shape.tiles_n() * kTileDim; ++n) {
      const bool inside = k < shape.K && n < shape.N;
      if (!inside && !padding) continue;
      const uint32_t value = inside ? indices[size_t(k) * shape.N + n] : padding();
      if (value >> shape.bits != 0)
        throw std::invalid_argument("pack_indices: index " + std::to_string(value) + " at (" +
                                    std::to_string(k) + ", " + std::to_string(n) +
                                    ") does not fit in " + std::to_string(shape.bits) + " bits");
      const TileAddress at = tile_address(shape, k, n);
      pack_index(packed.data() + at.tile_offset, at.idx_in_tile, shape.bits, value);
    }
  return packed;
}

std::vector<uint8_t> unpack_indices(const TrellisShape& shape, std::span<const uint8_t> packed) {
  std::vector<uint8_t> indices(size_t(shape.K) * shape.N);
  for (uint32_t k = 0; k < shape.K; ++k)
    for (uint32_t n = 0; n < shape.N; ++n) {
      const TileAddress at = tile_address(shape, k, n);
      indices[size_t(k) * shape.N + n] =
          uint8_t(unpack_index(packed.data() + at.tile_offset, at.idx_in_tile, shape.bits));
    }
  return indices;
}

uint32_t TrellisWeights::index(uint32_t e, uint32_t k, uint32_t n) const {
  const TileAddress at = tile_address(shape, k, n);
  return unpack_index(packed_of(e) + at.tile_offset, at.idx_in_tile, shape.bits);
}

// ------------------------------ section 5.2

namespace {

std::string str(size_t v) {
  return std::to_string(v);
}

void require(bool ok, const std::string& what, const std::string& message) {
  if (!ok) throw std::invalid_argument(what + ": " + message);
}

void check_parameters(const TrellisShape& s, const std::string& what) {
  require(s.bits >= 2 && s.bits <= 4, what,
          "bits = " + str(s.bits) + ": only 2, 3 and 4 are supported");
  require(s.K >= 1, what, "K = 0: the matrix has no rows");
  require(s.N >= 1, what, "N = 0: the matrix has no columns");
  require(s.group_size >= 1, what, "group_size = 0");
  require(s.n_levels >= 1, what, "n_levels = 0: the grid is empty");
  require(s.experts >= 1, what, "experts = 0");
}

}  // namespace

void check_shapes(const TrellisWeights& w, const std::string& what) {
  const TrellisShape& s = w.shape;
  check_parameters(s, what);
  const std::string for_k = " for K = " + str(s.K), for_n = " for N = " + str(s.N);
  require(w.packed_dims[0] == s.tiles_k(), what,
          "packed_indices.shape[0] = " + str(w.packed_dims[0]) +
              ", but tiles_k = ceil(K / 16) = " + str(s.tiles_k()) + for_k);
  require(w.packed_dims[1] == s.tiles_n(), what,
          "packed_indices.shape[1] = " + str(w.packed_dims[1]) +
              ", but tiles_n = ceil(N / 16) = " + str(s.tiles_n()) + for_n);
  require(w.packed_dims[2] == s.packed_bytes(), what,
          "packed_indices.shape[2] = " + str(w.packed_dims[2]) + ", but packed_bytes_per_tile(" +
              str(s.bits) + ") = " + str(s.packed_bytes()));
  require(w.packed.size() == s.experts * s.packed_per_expert(), what,
          "packed_indices holds " + str(w.packed.size()) + " bytes, but " + str(s.experts) +
              " expert(s) of shape [" + str(s.tiles_k()) + ", " + str(s.tiles_n()) + ", " +
              str(s.packed_bytes()) + "] need " + str(s.experts * s.packed_per_expert()));
  require(w.scales_dims[0] == s.n_groups(), what,
          "scales.shape[0] = n_groups = " + str(w.scales_dims[0]) +
              ", but ceil(K / group_size) = " + str(s.n_groups()) + for_k +
              ", group_size = " + str(s.group_size));
  require(w.scales_dims[1] == s.N, what,
          "scales.shape[1] = " + str(w.scales_dims[1]) + ", but N = " + str(s.N));
  require(w.scales.size() == s.experts * s.scales_per_expert(), what,
          "scales holds " + str(w.scales.size()) + " values, but " + str(s.experts) +
              " expert(s) of shape [" + str(s.n_groups()) + ", " + str(s.N) + "] need " +
              str(s.experts * s.scales_per_expert()));
  require(w.grid.size() == s.n_levels, what,
          "grid has " + str(w.grid.size()) + " values, but n_levels = " + str(s.n_levels));
  require(w.su.size() == size_t(s.experts) * s.K, what,
          "su has " + str(w.su.size()) + " values, but K = " + str(s.K) +
              (s.experts > 1 ? " per expert" : ""));
  require(w.sv.size() == size_t(s.experts) * s.N, what,
          "sv has " + str(w.sv.size()) + " values, but N = " + str(s.N) +
              (s.experts > 1 ? " per expert" : ""));
}

}  // namespace metalsim::kernels::trellis
