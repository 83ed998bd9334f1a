// Multi-token mat-vec of the gpu-perf-phase3 document ("Component 1: Multi-token Metal
// Shaders"): output [batch_size, out_dim] (float) = input [batch_size, in_dim] (float) x W^T,
// W [out_dim, in_dim] in GGML Q4_0 blocks (row-major, blocks along in_dim). The document gives
// the interface and the geometry, not the code:
//   buffers  weight(0), input(1), output(2), out_dim(3), in_dim(4), batch_size(5)
//   geometry 256 threads = 8 simdgroups, one output row per simdgroup, the loop over the
//            batch's tokens inside; ceil(out_dim / 8) threadgroups (any whole number of
//            simdgroups works: row = threadgroup * simdgroups + simdgroup)
//   variants multi_token_matvec_q4_0 (output = sum), multi_token_matvec_q4_0_accumulate
//            (output += sum: the residual adds of the O and down projections)
// The host rejects in_dim not a multiple of 32. docs/kernels/multi_token_matvec.md has the
// details and the tolerance.
#include <metal_stdlib>
using namespace metal;
#include "kernels/formats/ggml_blocks_msl.h"

constant constexpr uint MTM_TOKENS = 4;   // tokens per pass over a row: one float4 simd_sum

// One row of the output for every token of the batch, by one simdgroup. Lane l takes the
// half-blocks l, l + 32, ... of the row (half-block h of block b: bytes qs[8h .. 8h + 7], i.e.
// elements 8h .. 8h + 7 and 16 + 8h .. 16 + 8h + 7), dequantizes each once per pass and uses it
// for MTM_TOKENS tokens from registers: that is how the weight read is amortized over the
// batch. Each token's sum runs in the same order whatever the batch size, so a token's output
// is bit-identical alone or batched. The collective is outside every branch; a simdgroup whose
// row is past out_dim (the last threadgroup) reduces zeros and writes nothing.
template <bool ACCUMULATE>
static void multi_token_matvec_row(device const block_q4_0* weight, device const float* input,
                                   device float* output, uint out_dim, uint in_dim,
                                   uint batch_size, uint row, uint lane)
{
    const bool live = row < out_dim;
    const uint blocks = in_dim / 32;
    const uint halves = live ? 2 * blocks : 0;
    device const block_q4_0* w = weight + ulong(live ? row : 0) * blocks;
    for (uint t0 = 0; t0 < batch_size; t0 += MTM_TOKENS) {
        const uint tokens = min(MTM_TOKENS, batch_size - t0);
        float acc[MTM_TOKENS] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (uint u = lane; u < halves; u += 32) {
            const uint b = u / 2;
            const uint h = u % 2;
            float lo[8], hi[8];
            for (uint j = 0; j < 8; ++j) {
                const uint8_t q = w[b].qs[8 * h + j];
                lo[j] = float(int(q & 0x0F) - 8);
                hi[j] = float(int(q >> 4) - 8);
            }
            const float d = float(w[b].d);
            device const float* x = input + ulong(t0) * in_dim + 32 * b + 8 * h;
            for (uint t = 0; t < tokens; ++t) {
                device const float* xt = x + ulong(t) * in_dim;
                float s = 0.0f;
                for (uint j = 0; j < 8; ++j) s += lo[j] * xt[j] + hi[j] * xt[16 + j];
                acc[t] += d * s;
            }
        }
        const float4 sum = simd_sum(float4(acc[0], acc[1], acc[2], acc[3]));
        if (live && lane < tokens) {
            device float* o = output + ulong(t0 + lane) * out_dim + row;
            if (ACCUMULATE) *o += sum[lane];
            else *o = sum[lane];
        }
    }
}

// ------------------------------ multi_token_matvec_q4_0
/// output[t * out_dim + r] = sum_k W[r, k] * input[t * in_dim + k], for every token t < batch_size.
kernel void multi_token_matvec_q4_0(
    device const block_q4_0* weight [[buffer(0)]],
    device const float* input [[buffer(1)]],
    device float* output [[buffer(2)]],
    constant uint& out_dim [[buffer(3)]],
    constant uint& in_dim [[buffer(4)]],
    constant uint& batch_size [[buffer(5)]],
    uint tgid [[threadgroup_position_in_grid]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint simdgroups [[simdgroups_per_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    multi_token_matvec_row<false>(weight, input, output, out_dim, in_dim, batch_size,
                                  tgid * simdgroups + sg, lane);
}

// ------------------------------ multi_token_matvec_q4_0_accumulate
/// output[t * out_dim + r] += sum_k W[r, k] * input[t * in_dim + k] (the residual add).
kernel void multi_token_matvec_q4_0_accumulate(
    device const block_q4_0* weight [[buffer(0)]],
    device const float* input [[buffer(1)]],
    device float* output [[buffer(2)]],
    constant uint& out_dim [[buffer(3)]],
    constant uint& in_dim [[buffer(4)]],
    constant uint& batch_size [[buffer(5)]],
    uint tgid [[threadgroup_position_in_grid]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint simdgroups [[simdgroups_per_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    multi_token_matvec_row<true>(weight, input, output, out_dim, in_dim, batch_size,
                                 tgid * simdgroups + sg, lane);
}
