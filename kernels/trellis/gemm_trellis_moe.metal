// gemm_trellis_moe.metal: a mixture-of-experts layer on trellis-quantized experts (the Trellis
// document, section 7), in two dispatches of one command buffer:
//
//   gemm_trellis_moe_gate_up   h[m * top_k + j, :] = silu(x[m] gate_e) * (x[m] up_e), the SwiGLU
//                              fused into the epilogue of the gate and up GEMMs (one pass over x)
//   gemm_trellis_moe_down      out[m, :] = sum_j expert_probs[m, j] * (h[m * top_k + j] down_e),
//                              the probability-weighted sum fused into the down GEMM
//
// e = expert_ids[m, j]. Each expert's gate, up and down are trellis matrices stored one after the
// other (expert-major), sharing one grid: gate and up are [K, N] (hidden -> intermediate), down is
// [N, K]. The down projection needs all of h's N columns for every output, so one dispatch cannot
// finish what the other starts without atomics, whose float sums would depend on the order of
// threadgroups; two dispatches keep every output deterministic. docs/kernels/trellis.md, "MoE".
// Staging follows gemm_trellis.metal: a simdgroup_barrier between the dequantizing lanes' stores
// and the simdgroup's load; none after the products (the whole simdgroup has loaded by then).
#include <metal_stdlib>
#include "trellis_dequant.h"
using namespace metal;

struct TrellisParams {
    uint M;           // Batch size (tokens)
    uint K;           // Input hidden dimension
    uint N;           // Output dimension
    uint num_experts; // Total experts
    uint top_k;       // Experts per token
    uint bits;        // 2, 3, or 4
    uint group_size;  // Quantization group size
    uint n_levels;    // Codebook levels
};

constant constexpr uint MOE_TILE_K = 32;      // reduction elements per step
constant constexpr uint MOE_TILE_M = 32;      // rows (token slots or tokens) per threadgroup
constant constexpr uint MOE_TILE_N = 128;     // columns per threadgroup: 4 simdgroups of 32
constant constexpr uint MOE_THREADS = 128;

inline uint moe_fragments_inside(uint first, uint extent)
{
    return first >= extent ? 0u : min(4u, (extent - first + 7) / 8);
}

// One expert's trellis matrix [rows, cols] inside the stacked tensors.
struct ExpertMatrix {
    device const uchar* packed;
    device const float* scales;
    device const float* su;
    device const float* sv;
};

inline ExpertMatrix expert_matrix(device const uchar* packed, device const float* scales,
                                  device const float* su, device const float* sv,
                                  uint expert, uint rows, uint cols, uint bits, uint group_size)
{
    ulong tiles = ulong((rows + TRELLIS_TILE_DIM - 1) / TRELLIS_TILE_DIM) * ((cols + TRELLIS_TILE_DIM - 1) / TRELLIS_TILE_DIM);
    ulong n_groups = (rows + group_size - 1) / group_size;
    ExpertMatrix m;
    m.packed = packed + expert * tiles * ((TRELLIS_TILE_SIZE * bits + 7) / 8);
    m.scales = scales + expert * n_groups * cols;
    m.su = su + ulong(expert) * rows;
    m.sv = sv + ulong(expert) * cols;
    return m;
}

// ============================== gate and up, SwiGLU
// Grid (ceil(N / 128), ceil(M / 32), num_experts); 128 threads. Threadgroup (x, y, e) takes the
// token slots routed to expert e, the y-th run of 32 of them in slot order, and columns
// [128 x, 128 x + 128) of h; simdgroup s the 32 columns from 128 x + 32 s.
kernel void gemm_trellis_moe_gate_up(
    device const half* x [[buffer(0)]],             // [M, K]
    device const uint* expert_ids [[buffer(1)]],    // [M, top_k]
    device const uchar* gate_packed [[buffer(2)]],  // [E, tiles(K), tiles(N), packed_bytes]
    device const float* gate_scales [[buffer(3)]],  // [E, ceil(K / group_size), N]
    device const float* gate_su [[buffer(4)]],      // [E, K]
    device const float* gate_sv [[buffer(5)]],      // [E, N]
    device const uchar* up_packed [[buffer(6)]],
    device const float* up_scales [[buffer(7)]],
    device const float* up_su [[buffer(8)]],
    device const float* up_sv [[buffer(9)]],
    device const float* grid [[buffer(10)]],        // [n_levels], shared by every expert
    device half* h [[buffer(11)]],                  // [M * top_k, N]
    constant TrellisParams& params [[buffer(12)]],
    uint3 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint simd_lane_id [[thread_index_in_simdgroup]],
    uint simd_group_id [[simdgroup_index_in_threadgroup]])
{
    threadgroup uint slot_of_row[4][MOE_TILE_M];            // each simdgroup's copy
    threadgroup half A_tiles[2][MOE_TILE_M][MOE_TILE_K];
    threadgroup half B_staging[4][2][8][8];                 // gate, up
    threadgroup half epilogue_staging[4][8][8];

    const uint expert = tgid.z;
    const uint K = params.K, N = params.N, slots = params.M * params.top_k;
    const uint first = tgid.y * MOE_TILE_M;   // rank among the expert's slots of this tile's row 0

    // Routing: the slots of this expert, in order; rows first .. first + 31 are this tile's.
    uint found = 0;
    for (uint base = 0; base < slots; base += 32) {
        uint s = base + simd_lane_id;
        uint match = (s < slots && expert_ids[s] == expert) ? 1u : 0u;
        uint rank = found + simd_prefix_exclusive_sum(match);
        if (match != 0 && rank >= first && rank < first + MOE_TILE_M) {
            slot_of_row[simd_group_id][rank - first] = s;
        }
        found += simd_sum(match);
    }
    if (found <= first) {
        return;   // every lane of the threadgroup: found is the same in each simdgroup
    }
    const uint rows = min(found - first, MOE_TILE_M);
    simdgroup_barrier(mem_flags::mem_threadgroup);

    const ExpertMatrix gate = expert_matrix(gate_packed, gate_scales, gate_su, gate_sv, expert, K, N,
                                            params.bits, params.group_size);
    const ExpertMatrix up = expert_matrix(up_packed, up_scales, up_su, up_sv, expert, K, N,
                                          params.bits, params.group_size);
    const uint col0 = tgid.x * MOE_TILE_N + simd_group_id * 32;
    const uint frag_rows = moe_fragments_inside(0, rows);
    const uint frag_cols = moe_fragments_inside(col0, N);

    simdgroup_float8x8 acc_gate[4][4];
    simdgroup_float8x8 acc_up[4][4];
    for (uint i = 0; i < 4; ++i) {
        for (uint j = 0; j < 4; ++j) {
            acc_gate[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
            acc_up[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
        }
    }

    const uint k_steps = (K + MOE_TILE_K - 1) / MOE_TILE_K;
    for (uint kt = 0; kt <= k_steps; ++kt) {
        // Step kt loads tile kt (the rows are gathered tokens) and multiplies tile kt - 1.
        if (kt < k_steps) {
            for (uint i = tid; i < MOE_TILE_M * MOE_TILE_K; i += MOE_THREADS) {
                uint r = i / MOE_TILE_K;
                uint k = kt * MOE_TILE_K + i % MOE_TILE_K;
                half v = 0.0h;
                if (r < rows && k < K) {
                    v = x[ulong(slot_of_row[simd_group_id][r] / params.top_k) * K + k];
                }
                A_tiles[kt & 1][r][i % MOE_TILE_K] = v;
            }
        }
        if (kt > 0) {
            const uint t = kt - 1;
            const uint k_subs = moe_fragments_inside(t * MOE_TILE_K, K);
            for (uint ks = 0; ks < k_subs; ++ks) {
                const uint k_sub_base = t * MOE_TILE_K + ks * 8;
                simdgroup_half8x8 a_frag[4];
                for (uint rf = 0; rf < frag_rows; ++rf) {
                    simdgroup_load(a_frag[rf], &A_tiles[t & 1][rf * 8][ks * 8], MOE_TILE_K);
                }
                for (uint cf = 0; cf < frag_cols; ++cf) {
                    if (simd_lane_id < 8) {
                        dequant_b_column(&B_staging[simd_group_id][0][0][0], simd_lane_id, col0 + cf * 8, k_sub_base,
                                         gate.packed, gate.scales, grid, gate.su, gate.sv, K, N,
                                         params.bits, params.group_size, params.n_levels);
                    } else if (simd_lane_id < 16) {
                        dequant_b_column(&B_staging[simd_group_id][1][0][0], simd_lane_id - 8, col0 + cf * 8, k_sub_base,
                                         up.packed, up.scales, grid, up.su, up.sv, K, N,
                                         params.bits, params.group_size, params.n_levels);
                    }
                    simdgroup_barrier(mem_flags::mem_threadgroup);
                    simdgroup_half8x8 b_gate;
                    simdgroup_half8x8 b_up;
                    simdgroup_load(b_gate, &B_staging[simd_group_id][0][0][0], 8);
                    simdgroup_load(b_up, &B_staging[simd_group_id][1][0][0], 8);
                    for (uint rf = 0; rf < frag_rows; ++rf) {
                        simdgroup_multiply_accumulate(acc_gate[rf][cf], a_frag[rf], b_gate, acc_gate[rf][cf]);
                        simdgroup_multiply_accumulate(acc_up[rf][cf], a_frag[rf], b_up, acc_up[rf][cf]);
                    }
                }
            }
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);   // tile kt loaded, tile kt - 1 read
    }

    // Epilogue: SwiGLU element by element (both accumulators share the lane layout), then h.
    for (uint rf = 0; rf < frag_rows; ++rf) {
        for (uint cf = 0; cf < frag_cols; ++cf) {
            simdgroup_float8x8 act;
            float2 g = acc_gate[rf][cf].thread_elements();
            float2 u = acc_up[rf][cf].thread_elements();
            act.thread_elements() = g / (1.0f + exp(-g)) * u;
            simdgroup_store(act, &epilogue_staging[simd_group_id][0][0], 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint e = simd_lane_id; e < 64; e += 32) {
                uint r = rf * 8 + e / 8;
                uint col = col0 + cf * 8 + e % 8;
                if (r < rows && col < N) {
                    h[ulong(slot_of_row[simd_group_id][r]) * N + col] = epilogue_staging[simd_group_id][e / 8][e % 8];
                }
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
        }
    }
}

// ============================== down, weighted by expert_probs
// Grid (ceil(K / 128), ceil(M / 32)); 128 threads. Threadgroup (x, y) owns tokens
// [32 y, 32 y + 32) and output columns [128 x, 128 x + 128). For each expert in turn that one of
// its tokens uses: D = H_e down_e, where row r of H_e is the token's h row for that expert (0 if it
// does not use it), then out_tile += P_e D with P_e = diag(probability of each row's token).
kernel void gemm_trellis_moe_down(
    device const half* h [[buffer(0)]],             // [M * top_k, N]
    device const uint* expert_ids [[buffer(1)]],    // [M, top_k]
    device const float* expert_probs [[buffer(2)]], // [M, top_k]
    device const uchar* down_packed [[buffer(3)]],  // [E, tiles(N), tiles(K), packed_bytes]
    device const float* down_scales [[buffer(4)]],  // [E, ceil(N / group_size), K]
    device const float* down_su [[buffer(5)]],      // [E, N]
    device const float* down_sv [[buffer(6)]],      // [E, K]
    device const float* grid [[buffer(7)]],         // [n_levels]
    device half* out [[buffer(8)]],                 // [M, K]
    constant TrellisParams& params [[buffer(9)]],
    uint3 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint simd_lane_id [[thread_index_in_simdgroup]],
    uint simd_group_id [[simdgroup_index_in_threadgroup]])
{
    threadgroup int slot_of_row[4][MOE_TILE_M];             // each simdgroup's copy; -1: none
    threadgroup float prob_of_row[4][MOE_TILE_M];
    threadgroup half A_tiles[2][MOE_TILE_M][MOE_TILE_K];
    threadgroup half B_staging[4][8][8];
    threadgroup float P_staging[4][8][8];
    threadgroup half epilogue_staging[4][8][8];

    const uint K = params.K, N = params.N;
    const uint row0 = tgid.y * MOE_TILE_M;
    const uint col0 = tgid.x * MOE_TILE_N + simd_group_id * 32;
    const uint frag_rows = moe_fragments_inside(row0, params.M);
    const uint frag_cols = moe_fragments_inside(col0, K);
    const uint token = row0 + simd_lane_id;   // this lane's row of the tile

    simdgroup_float8x8 acc_out[4][4];
    for (uint i = 0; i < 4; ++i) {
        for (uint j = 0; j < 4; ++j) {
            acc_out[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
        }
    }

    const uint n_steps = (N + MOE_TILE_K - 1) / MOE_TILE_K;
    for (uint expert = 0; expert < params.num_experts; ++expert) {
        int slot = -1;
        float prob = 0.0f;
        if (token < params.M) {
            for (uint j = 0; j < params.top_k; ++j) {
                if (expert_ids[token * params.top_k + j] == expert) {
                    slot = int(token * params.top_k + j);
                    prob = expert_probs[token * params.top_k + j];
                }
            }
        }
        if (!simd_any(slot >= 0)) {
            continue;   // no token of the tile uses this expert (the same in every simdgroup)
        }
        slot_of_row[simd_group_id][simd_lane_id] = slot;
        prob_of_row[simd_group_id][simd_lane_id] = prob;
        simdgroup_barrier(mem_flags::mem_threadgroup);

        const ExpertMatrix down = expert_matrix(down_packed, down_scales, down_su, down_sv, expert, N, K,
                                                params.bits, params.group_size);
        simdgroup_float8x8 acc[4][4];
        for (uint i = 0; i < 4; ++i) {
            for (uint j = 0; j < 4; ++j) {
                acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
            }
        }
        for (uint nt = 0; nt <= n_steps; ++nt) {
            // Step nt loads tile nt of H_e and multiplies tile nt - 1.
            if (nt < n_steps) {
                for (uint i = tid; i < MOE_TILE_M * MOE_TILE_K; i += MOE_THREADS) {
                    uint r = i / MOE_TILE_K;
                    uint n = nt * MOE_TILE_K + i % MOE_TILE_K;
                    int s = slot_of_row[simd_group_id][r];
                    A_tiles[nt & 1][r][i % MOE_TILE_K] = (s >= 0 && n < N) ? h[ulong(s) * N + n] : 0.0h;
                }
            }
            if (nt > 0) {
                const uint t = nt - 1;
                const uint n_subs = moe_fragments_inside(t * MOE_TILE_K, N);
                for (uint ns = 0; ns < n_subs; ++ns) {
                    const uint n_sub_base = t * MOE_TILE_K + ns * 8;
                    simdgroup_half8x8 a_frag[4];
                    for (uint rf = 0; rf < frag_rows; ++rf) {
                        simdgroup_load(a_frag[rf], &A_tiles[t & 1][rf * 8][ns * 8], MOE_TILE_K);
                    }
                    for (uint cf = 0; cf < frag_cols; ++cf) {
                        if (simd_lane_id < 8) {
                            dequant_b_column(&B_staging[simd_group_id][0][0], simd_lane_id, col0 + cf * 8, n_sub_base,
                                             down.packed, down.scales, grid, down.su, down.sv, N, K,
                                             params.bits, params.group_size, params.n_levels);
                        }
                        simdgroup_barrier(mem_flags::mem_threadgroup);
                        simdgroup_half8x8 b_frag;
                        simdgroup_load(b_frag, &B_staging[simd_group_id][0][0], 8);
                        for (uint rf = 0; rf < frag_rows; ++rf) {
                            simdgroup_multiply_accumulate(acc[rf][cf], a_frag[rf], b_frag, acc[rf][cf]);
                        }
                    }
                }
            }
            threadgroup_barrier(mem_flags::mem_threadgroup);   // tile nt loaded, tile nt - 1 read
        }

        // out_tile += diag(prob) x D, fragment row by fragment row.
        for (uint rf = 0; rf < frag_rows; ++rf) {
            for (uint e = simd_lane_id; e < 64; e += 32) {
                uint r = e / 8, c = e % 8;
                P_staging[simd_group_id][r][c] = r == c ? prob_of_row[simd_group_id][rf * 8 + r] : 0.0f;
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
            simdgroup_float8x8 p;
            simdgroup_load(p, &P_staging[simd_group_id][0][0], 8);
            for (uint cf = 0; cf < frag_cols; ++cf) {
                simdgroup_multiply_accumulate(acc_out[rf][cf], p, acc[rf][cf], acc_out[rf][cf]);
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
        }
    }

    for (uint rf = 0; rf < frag_rows; ++rf) {
        for (uint cf = 0; cf < frag_cols; ++cf) {
            simdgroup_store(acc_out[rf][cf], &epilogue_staging[simd_group_id][0][0], 8);
            simdgroup_barrier(mem_flags::mem_threadgroup);
            for (uint e = simd_lane_id; e < 64; e += 32) {
                uint row = row0 + rf * 8 + e / 8;
                uint col = col0 + cf * 8 + e % 8;
                if (row < params.M && col < K) {
                    out[ulong(row) * K + col] = epilogue_staging[simd_group_id][e / 8][e % 8];
                }
            }
            simdgroup_barrier(mem_flags::mem_threadgroup);
        }
    }
}
