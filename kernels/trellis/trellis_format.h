#pragma once
// The trellis weight format of the Trellis document (sections 1, 4 and 5.2), host side.
//
// A matrix W [K, N] (K input features, N output features) is stored as
//   packed_indices [tiles_k, tiles_n, packed_bytes] uint8   16x16 tiles of 2-, 3- or 4-bit indices
//   scales         [n_groups, N] float                      one scale per group of rows, per column
//   grid           [n_levels] float                         the codebook
//   su [K], sv [N] float                                    row and column signs
// and w[k, n] = grid[idx(k, n)] * scales[k / group_size, n] * su[k] * sv[n].
// Several experts (the MoE kernel) stack E such matrices, expert-major, sharing one grid.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace metalsim::kernels::trellis {

inline constexpr uint32_t kTileDim = 16;                    // TILE_DIM
inline constexpr uint32_t kTileSize = kTileDim * kTileDim;  // TILE_SIZE: indices per tile

// (256 * bits + 7) / 8: 64, 96, 128 bytes for 2, 3, 4 bits (section 4.2).
uint32_t packed_bytes_per_tile(uint32_t bits);

// The sizes of one trellis-quantized matrix (or of each of `experts` stacked ones).
struct TrellisShape {
  uint32_t K = 0;     // rows: input features
  uint32_t N = 0;     // columns: output features
  uint32_t bits = 4;  // 2, 3 or 4
  uint32_t group_size = 128;
  uint32_t n_levels = 16;  // grid entries; indices >= n_levels are clamped to 0 (section 5.1)
  uint32_t experts = 1;

  uint32_t tiles_k() const { return (K + kTileDim - 1) / kTileDim; }
  uint32_t tiles_n() const { return (N + kTileDim - 1) / kTileDim; }
  uint32_t packed_bytes() const { return packed_bytes_per_tile(bits); }
  uint32_t n_groups() const { return (K + group_size - 1) / group_size; }
  size_t packed_per_expert() const { return size_t(tiles_k()) * tiles_n() * packed_bytes(); }
  size_t scales_per_expert() const { return size_t(n_groups()) * N; }
  // Bytes of every tensor of all experts, and per weight (what section 6.3's ratios leave out).
  size_t storage_bytes() const;
  double bits_per_weight() const;
};

// Section 4.3: where index (k, n) of one expert lives.
struct TileAddress {
  size_t tile_offset;    // (tile_k * tiles_n + tile_n) * packed_bytes
  uint32_t idx_in_tile;  // local_k * 16 + local_n (row-major within the tile)
};
TileAddress tile_address(const TrellisShape& shape, uint32_t k, uint32_t n);

// LSB-first bit packing within one tile: index i occupies bits [i * bits, (i + 1) * bits) of the
// tile's little-endian bit string, so a 3-bit index may span two bytes (section 1.3).
void pack_index(uint8_t* tile, uint32_t idx_in_tile, uint32_t bits, uint32_t value);
uint32_t unpack_index(const uint8_t* tile, uint32_t idx_in_tile, uint32_t bits);

// Packs one expert's indices [K, N] (row-major, each < 2^bits) into [tiles_k, tiles_n,
// packed_bytes]. Positions of partial tiles outside K x N get `padding()` (0 when empty): the
// kernels must never use them, so tests fill them with random indices.
std::vector<uint8_t> pack_indices(const TrellisShape& shape, std::span<const uint8_t> indices,
                                  const std::function<uint32_t()>& padding = {});
std::vector<uint8_t> unpack_indices(const TrellisShape& shape, std::span<const uint8_t> packed);

// A trellis-quantized matrix (or stack of experts) on the host, each tensor with the shape it
// claims, as a dispatch receives them.
struct TrellisWeights {
  TrellisShape shape;
  std::vector<uint8_t> packed;          // [experts, tiles_k, tiles_n, packed_bytes]
  std::array<size_t, 3> packed_dims{};  // [tiles_k, tiles_n, packed_bytes] as claimed
  std::vector<float> scales;            // [experts, n_groups, N]
  std::array<size_t, 2> scales_dims{};  // [n_groups, N] as claimed
  std::vector<float> grid;              // [n_levels]
  std::vector<float> su;                // [experts, K]
  std::vector<float> sv;                // [experts, N]

  const uint8_t* packed_of(uint32_t e) const {
    return packed.data() + e * shape.packed_per_expert();
  }
  const float* scales_of(uint32_t e) const { return scales.data() + e * shape.scales_per_expert(); }
  const float* su_of(uint32_t e) const { return su.data() + size_t(e) * shape.K; }
  const float* sv_of(uint32_t e) const { return sv.data() + size_t(e) * shape.N; }
  uint32_t index(uint32_t e, uint32_t k, uint32_t n) const;  // unclamped
};

// Section 5.2's checks, and the parameters' own: throws std::invalid_argument naming the first
// dimension that does not match ("packed_indices.shape[0] = 3, but tiles_k = ceil(K / 16) = 4
// for K = 50"). `what` prefixes the message (the kernel or layer).
void check_shapes(const TrellisWeights& w, const std::string& what = "trellis weights");

}  // namespace metalsim::kernels::trellis
