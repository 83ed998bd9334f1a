// gemm_trellis.metal: C [M, N] (half) = A [M, K] (half) x W [K, N], W trellis-quantized (the
// Trellis document, sections 1, 3 and 4; trellis_dequant.h reads the format).
//
//   gemm_trellis_packed                 prefill: 64x64 output tiles, 2x2 simdgroups of 32x32
//   gemm_trellis_packed_decode          decode (M <= 16): 32x128 output tiles, 1x4 simdgroups
//   gemm_trellis_packed_as_documented   the prefill kernel with section 3.3's dequantization
//                                       sketch as written (known bugs: docs/findings/trellis.md)
//
// One kernel body, gemm_trellis_tiles, in all three. Threadgroup: 4 simdgroups of 32 lanes; grid
// (ceil(N / TILE_N), ceil(M / TILE_M)). Per K step of 32: A tiles double-buffered in threadgroup
// memory (the next step's tile loads while this one multiplies); per 8-row sub-tile and 8-column
// fragment, lanes 0-7 of each simdgroup dequantize an 8x8 block of W into the simdgroup's own
// staging, and the simdgroup multiplies it into its 32x32 quadrant with simdgroup_matrix
// products (half operands, float accumulators). The epilogue goes through threadgroup staging so
// edge tiles write only the elements inside M x N. docs/kernels/trellis.md gives the geometry.
#include <metal_stdlib>
#include "trellis_dequant.h"
using namespace metal;

constant constexpr uint TRELLIS_TILE_K = 32;      // K elements per step
constant constexpr uint TRELLIS_SG_TILE = 32;     // each simdgroup's quadrant: 32x32
constant constexpr uint TRELLIS_THREADS = 128;    // 4 simdgroups

// Rows (or columns) of 8-wide fragments that start inside `extent` from `first` on, at most 4:
// fragments wholly outside M, N or K are skipped (the same for every lane of a simdgroup).
inline uint fragments_inside(uint first, uint extent)
{
    return first >= extent ? 0u : min(4u, (extent - first + 7) / 8);
}

// A [row0 .. row0 + tile_m) x [k0 .. k0 + 32) into `tile` (row-major, 32 per row), zero outside
// M x K; all 128 threads take part.
inline void load_a_tile(threadgroup half* tile, device const half* A, uint row0, uint k0,
                        uint M, uint K, uint tile_m, uint tid)
{
    for (uint i = tid; i < tile_m * TRELLIS_TILE_K; i += TRELLIS_THREADS) {
        uint r = row0 + i / TRELLIS_TILE_K;
        uint k = k0 + i % TRELLIS_TILE_K;
        tile[i] = (r < M && k < K) ? A[ulong(r) * K + k] : 0.0h;
    }
}

template <uint TILE_M, uint TILE_N, bool AS_DOCUMENTED>
kernel void gemm_trellis_tiles(
    device const half* A [[buffer(0)]],            // [M, K]
    device const uchar* packed [[buffer(1)]],      // packed_indices [tiles_k, tiles_n, packed_bytes]
    device const float* scales [[buffer(2)]],      // [n_groups, N]
    device const float* grid [[buffer(3)]],        // [n_levels]
    device const float* su [[buffer(4)]],          // [K]
    device const float* sv [[buffer(5)]],          // [N]
    device half* C [[buffer(6)]],                  // [M, N]
    constant uint& M [[buffer(7)]],
    constant uint& K [[buffer(8)]],
    constant uint& N [[buffer(9)]],
    constant uint& bits [[buffer(10)]],
    constant uint& group_size [[buffer(11)]],
    constant uint& n_levels [[buffer(12)]],
    uint2 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint simd_lane_id [[thread_index_in_simdgroup]],
    uint simd_group_id [[simdgroup_index_in_threadgroup]])
{
    threadgroup half A_tiles[2][TILE_M][TRELLIS_TILE_K];   // double-buffered A
    threadgroup half B_staging[4][8][8];                    // per-simdgroup dequantized W
    threadgroup half epilogue_staging[4][8][8];             // per-simdgroup output fragment

    const uint sg_cols = TILE_N / TRELLIS_SG_TILE;
    const uint row0 = tgid.y * TILE_M;
    const uint col0 = tgid.x * TILE_N;
    const uint sg_row = (simd_group_id / sg_cols) * TRELLIS_SG_TILE;
    const uint sg_col = (simd_group_id % sg_cols) * TRELLIS_SG_TILE;
    const uint frag_rows = fragments_inside(row0 + sg_row, M);
    const uint frag_cols = frag_rows == 0 ? 0u : fragments_inside(col0 + sg_col, N);
    const uint tiles_n = (N + TRELLIS_TILE_DIM - 1) / TRELLIS_TILE_DIM;
    const uint packed_bytes = (TRELLIS_TILE_SIZE * bits + 7) / 8;

    simdgroup_float8x8 acc[4][4];
    for (uint i = 0; i < 4; ++i)
        for (uint j = 0; j < 4; ++j)
            acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);

    const uint k_steps = (K + TRELLIS_TILE_K - 1) / TRELLIS_TILE_K;
    load_a_tile(&A_tiles[0][0][0], A, row0, 0, M, K, TILE_M, tid);
    threadgroup_barrier(mem_flags::mem_threadgroup);

    for (uint kt = 0; kt < k_steps; ++kt) {
        const uint buf = kt & 1;
        // The other buffer was last read in step kt - 1, before the barrier that ended it.
        if (kt + 1 < k_steps) {
            load_a_tile(&A_tiles[buf ^ 1][0][0], A, row0, (kt + 1) * TRELLIS_TILE_K, M, K, TILE_M, tid);
        }
        const uint k_subs = fragments_inside(kt * TRELLIS_TILE_K, K);
        for (uint ks = 0; ks < k_subs; ++ks) {
            const uint k_sub_base = kt * TRELLIS_TILE_K + ks * 8;
            simdgroup_half8x8 a_frag[4];
            for (uint rf = 0; rf < frag_rows; ++rf) {
                simdgroup_load(a_frag[rf], &A_tiles[buf][sg_row + rf * 8][ks * 8], TRELLIS_TILE_K);
            }
            for (uint cf = 0; cf < frag_cols; ++cf) {
                const uint b_col_base = col0 + sg_col + cf * 8;
                if (AS_DOCUMENTED) {
                    // ---- the Trellis document, section 3.3, as written. It uses local_k, k_idx
                    // and scale without declaring them: the three lines marked "declared here"
                    // give them the meaning their neighbours suggest (from k_sub_base, as
                    // trellis_tile_k is; the scale of the sub-tile's group and this column).
                    if (simd_lane_id < 8) {
                        uint b_col = b_col_base + simd_lane_id;
                        half dequant_vals[8];

                        // Calculate trellis tile coordinates
                        uint trellis_tile_k = k_sub_base / TRELLIS_TILE_DIM;
                        uint trellis_tile_n = b_col / TRELLIS_TILE_DIM;
                        uint local_n = b_col % TRELLIS_TILE_DIM;
                        uint local_k = k_sub_base % TRELLIS_TILE_DIM;                // declared here
                        uint k_idx = k_sub_base;                                     // declared here
                        float scale = scales[(k_sub_base / group_size) * N + b_col]; // declared here

                        // Compute packed offset
                        uint tile_offset = (trellis_tile_k * tiles_n + trellis_tile_n) * packed_bytes;

                        // Dequant 8 elements
                        for (uint row = 0; row < 8; ++row) {
                            uint idx_in_tile = local_k * TRELLIS_TILE_DIM + local_n;
                            uint trellis_idx = unpack_trellis_index(packed + tile_offset, idx_in_tile, bits);
                            dequant_vals[row] = grid[trellis_idx] * scale * su[k_idx] * sv[b_col];
                        }

                        // Write to staging
                        for (uint row = 0; row < 8; ++row) {
                            B_staging[simd_group_id][row][simd_lane_id] = dequant_vals[row];
                        }
                    }
                    // ---- end of section 3.3
                } else if (simd_lane_id < 8) {
                    dequant_b_column(&B_staging[simd_group_id][0][0], simd_lane_id, b_col_base, k_sub_base,
                                     packed, scales, grid, su, sv, K, N, bits, group_size, n_levels);
                }
                simdgroup_barrier(mem_flags::mem_threadgroup);
                simdgroup_half8x8 b_frag;
                simdgroup_load(b_frag, &B_staging[simd_group_id][0][0], 8);
                // No barrier before the next fragment rewrites the staging: every lane has loaded
                // b_frag before the whole simdgroup takes part in the first product.
                for (uint rf = 0; rf < frag_rows; ++rf) {
                    simdgroup_multiply_accumulate(acc[rf][cf], a_frag[rf], b_frag, acc[rf][cf]);
                }
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);   // tile kt + 1 loaded, tile kt read
    }

    // Epilogue: each fragment through the simdgroup's staging, written inside M x N only.
    for (uint rf = 0; rf < frag_rows; ++rf) {
        for (uint cf = 0; cf < frag_cols; ++cf) {
            simdgroup_store(acc[rf][cf], &epilogue_staging[simd_group_id][0][0], 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint e = simd_lane_id; e < 64; e += 32) {
                uint row = row0 + sg_row + rf * 8 + e / 8;
                uint col = col0 + sg_col + cf * 8 + e % 8;
                if (row < M && col < N) {
                    C[ulong(row) * N + col] = epilogue_staging[simd_group_id][e / 8][e % 8];
                }
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
        }
    }
}

template [[host_name("gemm_trellis_packed")]] [[kernel]]
decltype(gemm_trellis_tiles<64, 64, false>) gemm_trellis_tiles<64, 64, false>;
template [[host_name("gemm_trellis_packed_decode")]] [[kernel]]
decltype(gemm_trellis_tiles<32, 128, false>) gemm_trellis_tiles<32, 128, false>;
template [[host_name("gemm_trellis_packed_as_documented")]] [[kernel]]
decltype(gemm_trellis_tiles<64, 64, true>) gemm_trellis_tiles<64, 64, true>;
