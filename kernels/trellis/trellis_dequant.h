// trellis_dequant.h: the trellis format as the kernels read it (MSL; included by
// gemm_trellis.metal and gemm_trellis_moe.metal).
//
//   w[k, n] = grid[idx] * scales[k / group_size, n] * su[k] * sv[n]
//   idx: packed_indices [tiles_k, tiles_n, packed_bytes], 16x16 tiles, LSB-first bits
#pragma once
#include <metal_stdlib>
using namespace metal;

constant constexpr uint TRELLIS_TILE_DIM = 16;
constant constexpr uint TRELLIS_TILE_SIZE = TRELLIS_TILE_DIM * TRELLIS_TILE_DIM;

// Index `idx_in_tile` of a tile whose indices are `bits` wide, packed LSB-first: the index
// starts at bit idx_in_tile * bits; a 3-bit index whose bits cross a byte boundary takes the
// rest from the next byte (never past the tile: 256 * 3 bits end on a byte boundary).
inline uint unpack_trellis_index(device const uchar* tile, uint idx_in_tile, uint bits)
{
    uint bit_offset = idx_in_tile * bits;
    uint byte_index = bit_offset >> 3;
    uint shift = bit_offset & 7;
    uint value = uint(tile[byte_index]) >> shift;
    if (shift + bits > 8) {
        value |= uint(tile[byte_index + 1]) << (8 - shift);
    }
    return value & ((1u << bits) - 1u);
}

// Column `lane` (0..7) of the 8x8 sub-tile of W at rows k_sub_base .. k_sub_base + 7 and
// columns b_col_base .. b_col_base + 7, into column `lane` of `staging` (8x8 halves, row-major).
// Weights outside K x N are 0, so a partial sub-tile adds nothing. An index >= n_levels reads
// grid[0]: the clamp of the document's section 5.1.
inline void dequant_b_column(threadgroup half* staging, uint lane, uint b_col_base, uint k_sub_base,
                             device const uchar* packed, device const float* scales,
                             device const float* grid, device const float* su,
                             device const float* sv, uint K, uint N, uint bits,
                             uint group_size, uint n_levels)
{
    uint b_col = b_col_base + lane;
    uint tiles_n = (N + TRELLIS_TILE_DIM - 1) / TRELLIS_TILE_DIM;
    uint packed_bytes = (TRELLIS_TILE_SIZE * bits + 7) / 8;
    uint trellis_tile_n = b_col / TRELLIS_TILE_DIM;
    uint local_n = b_col % TRELLIS_TILE_DIM;
    for (uint row = 0; row < 8; ++row) {
        uint k = k_sub_base + row;
        half w = 0.0h;
        if (k < K && b_col < N) {
            uint trellis_tile_k = k / TRELLIS_TILE_DIM;
            uint local_k = k % TRELLIS_TILE_DIM;
            ulong tile_offset = (ulong(trellis_tile_k) * tiles_n + trellis_tile_n) * packed_bytes;
            uint idx_in_tile = local_k * TRELLIS_TILE_DIM + local_n;
            uint trellis_idx = unpack_trellis_index(packed + tile_offset, idx_in_tile, bits);
            if (trellis_idx >= n_levels) trellis_idx = 0;
            float scale = scales[ulong(k / group_size) * N + b_col];
            w = half(grid[trellis_idx] * scale * su[k] * sv[b_col]);
        }
        staging[row * 8 + lane] = w;
    }
}
