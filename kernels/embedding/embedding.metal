// Token embedding lookup (ADR-003's embedding.metal, whose code the document does not show)
// and the argmax over a row of logits that greedy sampling needs.
#include <metal_stdlib>
using namespace metal;
#include "kernels/formats/ggml_blocks_msl.h"

struct EmbeddingParams {
    uint tokens;   // T: token ids in the batch
    uint vocab;    // V: rows of the table
    uint dim;      // D: hidden size (a multiple of 32 for Q8_0)
    float scale;   // 1, or sqrt(D) for Gemma
};

// ------------------------------ embedding_lookup_f16
/// out[t, :] = table[tokens[t], :] * scale. An id >= vocab is not read: its row of out is 0
/// and status[t] = 1 (else 0), which the host turns into an error. Grid [D, T].
kernel void embedding_lookup_f16(
    device const uint* tokens [[buffer(0)]],
    device const half* table [[buffer(1)]],
    device half* out [[buffer(2)]],
    device uint* status [[buffer(3)]],
    constant EmbeddingParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= p.dim || gid.y >= p.tokens) return;
    uint token = tokens[gid.y];
    bool bad = token >= p.vocab;
    if (gid.x == 0) status[gid.y] = bad ? 1u : 0u;
    ulong o = ulong(gid.y) * p.dim + gid.x;
    out[o] = bad ? half(0) : half(float(table[ulong(token) * p.dim + gid.x]) * p.scale);
}

// ------------------------------ embedding_lookup_q8_0
/// As embedding_lookup_f16 with the table in GGML Q8_0 blocks, D / 32 per row.
kernel void embedding_lookup_q8_0(
    device const uint* tokens [[buffer(0)]],
    device const block_q8_0* table [[buffer(1)]],
    device half* out [[buffer(2)]],
    device uint* status [[buffer(3)]],
    constant EmbeddingParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= p.dim || gid.y >= p.tokens) return;
    uint token = tokens[gid.y];
    bool bad = token >= p.vocab;
    if (gid.x == 0) status[gid.y] = bad ? 1u : 0u;
    ulong o = ulong(gid.y) * p.dim + gid.x;
    if (bad) {
        out[o] = half(0);
        return;
    }
    device const block_q8_0& b = table[ulong(token) * (p.dim / 32) + gid.x / 32];
    out[o] = half(float(b.qs[gid.x % 32]) * float(b.d) * p.scale);
}

// ------------------------------ embedding_lookup_q4_0_float
/// As embedding_lookup_f16 with the table in GGML Q4_0 blocks (D / 32 per row) and a float
/// output: the embedding of a model whose lm_head is tied to a Q4_0 table and whose residual
/// stream is float (host/model/).
kernel void embedding_lookup_q4_0_float(
    device const uint* tokens [[buffer(0)]],
    device const block_q4_0* table [[buffer(1)]],
    device float* out [[buffer(2)]],
    device uint* status [[buffer(3)]],
    constant EmbeddingParams& p [[buffer(4)]],
    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= p.dim || gid.y >= p.tokens) return;
    uint token = tokens[gid.y];
    bool bad = token >= p.vocab;
    if (gid.x == 0) status[gid.y] = bad ? 1u : 0u;
    ulong o = ulong(gid.y) * p.dim + gid.x;
    if (bad) {
        out[o] = 0.0f;
        return;
    }
    device const block_q4_0& b = table[ulong(token) * (p.dim / 32) + gid.x / 32];
    uint j = gid.x % 32;
    uint nibble = j < 16 ? (b.qs[j] & 0x0F) : (b.qs[j - 16] >> 4);
    out[o] = float(int(nibble) - 8) * float(b.d) * p.scale;
}

// ------------------------------ argmax
// Is (v, i) a better candidate than (best_v, best_i)? NaN is never a candidate; the larger
// value wins, equal values go to the lower index. best_i == cols means "none yet".
static bool better(float v, uint i, float best_v, uint best_i, uint cols)
{
    if (i >= cols || isnan(v)) return false;
    return best_i >= cols || v > best_v || (v == best_v && i < best_i);
}

/// out[r] = the index of the largest logit of row r: ties go to the lowest index, NaNs are
/// skipped, a row of only NaNs gives cols (no index). One threadgroup of any size per row;
/// threadgroup(0) holds one float and threadgroup(1) one uint per thread.
kernel void argmax(
    device const float* logits [[buffer(0)]],
    device uint* out [[buffer(1)]],
    constant uint& rows [[buffer(2)]],
    constant uint& cols [[buffer(3)]],
    threadgroup float* best_v [[threadgroup(0)]],
    threadgroup uint* best_i [[threadgroup(1)]],
    uint tid [[thread_index_in_threadgroup]],
    uint tgid [[threadgroup_position_in_grid]],
    uint threads [[threads_per_threadgroup]])
{
    if (tgid >= rows) return;  // uniform across the threadgroup
    device const float* row = logits + ulong(tgid) * cols;
    float v = -INFINITY;
    uint idx = cols;
    for (uint i = tid; i < cols; i += threads)
        if (better(row[i], i, v, idx, cols)) { v = row[i]; idx = i; }
    best_v[tid] = v;
    best_i[tid] = idx;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint p = 1;
    while (p * 2 <= threads) p *= 2;
    if (tid + p < threads && better(best_v[tid + p], best_i[tid + p], best_v[tid], best_i[tid], cols)) {
        best_v[tid] = best_v[tid + p];
        best_i[tid] = best_i[tid + p];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = p / 2; stride > 0; stride >>= 1) {
        if (tid < stride && better(best_v[tid + stride], best_i[tid + stride], best_v[tid], best_i[tid], cols)) {
            best_v[tid] = best_v[tid + stride];
            best_i[tid] = best_i[tid + stride];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    if (tid == 0) out[tgid] = best_i[0];
}
