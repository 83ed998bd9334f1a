// attention.metal: scaled dot-product attention, softmax(Q K^T * scale + mask) V.
//
//   flash_attention_forward_as_documented  ADR-003's kernel, ported line for line (known bugs:
//                                          docs/findings/attention.md)
//   flash_attention_forward                the corrected prefill kernel: any seq_q, seq_kv,
//                                          head_dim 64/80/96/128, causal with kv_offset, GQA,
//                                          strided [B,H,L,D] views
//   flash_attention_forward_masked_half    the same with an additive mask [B or 1, 1, seq_q,
//   flash_attention_forward_masked_float   seq_kv] (0 attends, -inf ignores), half or float
//   decode_attention                       one query token per head against a KV cache
//   decode_attention_float                 the same on float Q, K, V, O
//   kv_append_float                        copies one token's K and V rows into a float cache
//
// docs/kernels/attention.md gives the geometry, the threadgroup memory per head_dim and the
// tolerance.
#include <metal_stdlib>
using namespace metal;

// ============================== flash_attention_forward_as_documented
// ADR-003 "1. Flash Attention", unchanged but for the kernel's name. Host side: 256 threads per
// threadgroup, grid (ceil(seq_q / 64), num_heads, batch), threadgroup memory (3 * 64 *
// head_dim) halves + 64 * 64 floats.

struct AttentionParams {
    uint seq_q;          // Query sequence length
    uint seq_kv;         // Key/Value sequence length
    uint head_dim;       // Dimension per head (typically 64-128)
    uint num_heads;      // Number of attention heads
    float scale;         // 1/sqrt(head_dim)
    uint kv_cache_offset; // For incremental decoding
};

kernel void flash_attention_forward_as_documented(
    device const half* Q [[buffer(0)]],
    device const half* K [[buffer(1)]],
    device const half* V [[buffer(2)]],
    device half* O [[buffer(3)]],
    constant AttentionParams& params [[buffer(4)]],

    threadgroup half* shared [[threadgroup(0)]],

    uint3 tid [[thread_position_in_threadgroup]],
    uint3 tgid [[threadgroup_position_in_grid]],
    uint simd_lane [[thread_index_in_simdgroup]])
{
    const uint TILE_Q = 64;   // Query tile size
    const uint TILE_KV = 64;  // Key/Value tile size

    // Partition shared memory
    // Layout: [Q_tile | K_tile | V_tile | S_tile (float)]
    threadgroup half* Q_tile = shared;
    threadgroup half* K_tile = shared + TILE_Q * params.head_dim;
    threadgroup half* V_tile = K_tile + TILE_KV * params.head_dim;
    threadgroup float* S_tile = (threadgroup float*)(V_tile + TILE_KV * params.head_dim);

    uint batch_idx = tgid.z;
    uint head_idx = tgid.y;
    uint q_tile_idx = tgid.x;
    uint q_start = q_tile_idx * TILE_Q;

    // Base pointers for this batch/head
    uint batch_head_offset = (batch_idx * params.num_heads + head_idx) *
                             params.seq_kv * params.head_dim;
    device const half* Q_head = Q + batch_head_offset;
    device const half* K_head = K + batch_head_offset;
    device const half* V_head = V + batch_head_offset;
    device half* O_head = O + batch_head_offset;

    // Online softmax accumulators (per-thread, in registers)
    float m_i = -INFINITY;  // Running max
    float l_i = 0.0f;       // Running sum of exp(x - max)
    float O_acc[128];       // Accumulator (head_dim ≤ 128)

    for (uint d = 0; d < params.head_dim; d++) {
        O_acc[d] = 0.0f;
    }

    // Load Q tile (cooperative)
    for (uint i = tid.x; i < TILE_Q * params.head_dim; i += 256) {
        uint q_idx = q_start + i / params.head_dim;
        uint d_idx = i % params.head_dim;
        Q_tile[i] = (q_idx < params.seq_q) ? Q_head[q_idx * params.head_dim + d_idx] : half(0);
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // Iterate over KV tiles
    for (uint kv_start = 0; kv_start < params.seq_kv; kv_start += TILE_KV) {

        // Load K, V tiles (cooperative)
        for (uint i = tid.x; i < TILE_KV * params.head_dim; i += 256) {
            uint kv_idx = kv_start + i / params.head_dim;
            uint d_idx = i % params.head_dim;
            half k_val = (kv_idx < params.seq_kv) ? K_head[kv_idx * params.head_dim + d_idx] : half(0);
            half v_val = (kv_idx < params.seq_kv) ? V_head[kv_idx * params.head_dim + d_idx] : half(0);
            K_tile[i] = k_val;
            V_tile[i] = v_val;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);

        // Compute S = Q @ K^T for this tile
        uint local_q = tid.x / TILE_KV;  // Which Q row this thread handles
        uint local_k = tid.x % TILE_KV;  // Which K row this thread computes against

        if (local_q < TILE_Q && q_start + local_q < params.seq_q) {
            float dot = 0.0f;
            for (uint d = 0; d < params.head_dim; d++) {
                dot += float(Q_tile[local_q * params.head_dim + d]) *
                       float(K_tile[local_k * params.head_dim + d]);
            }
            dot *= params.scale;

            // Causal mask: only attend to positions ≤ current
            uint global_q = q_start + local_q;
            uint global_k = kv_start + local_k;
            if (global_k > global_q) {
                dot = -INFINITY;
            }

            S_tile[local_q * TILE_KV + local_k] = dot;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);

        // Online softmax update for each Q position this thread owns
        if (local_q < TILE_Q && q_start + local_q < params.seq_q) {
            // Find max in this tile’s row
            float m_tile = -INFINITY;
            for (uint j = 0; j < TILE_KV && kv_start + j < params.seq_kv; j++) {
                m_tile = max(m_tile, S_tile[local_q * TILE_KV + j]);
            }

            // New global max
            float m_new = max(m_i, m_tile);

            // Compute sum of exp for this tile
            float l_tile = 0.0f;
            for (uint j = 0; j < TILE_KV && kv_start + j < params.seq_kv; j++) {
                l_tile += exp(S_tile[local_q * TILE_KV + j] - m_new);
            }

            // Rescale previous accumulator
            float scale_prev = exp(m_i - m_new);
            float l_new = scale_prev * l_i + l_tile;

            for (uint d = 0; d < params.head_dim; d++) {
                O_acc[d] *= scale_prev * l_i / l_new;
            }

            // Add contribution from this KV tile
            for (uint j = 0; j < TILE_KV && kv_start + j < params.seq_kv; j++) {
                float att_weight = exp(S_tile[local_q * TILE_KV + j] - m_new) / l_new;
                for (uint d = 0; d < params.head_dim; d++) {
                    O_acc[d] += att_weight * float(V_tile[j * params.head_dim + d]);
                }
            }

            m_i = m_new;
            l_i = l_new;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    // Write output
    if (tid.x < TILE_Q && q_start + tid.x < params.seq_q) {
        for (uint d = 0; d < params.head_dim; d++) {
            O_head[(q_start + tid.x) * params.head_dim + d] = half(O_acc[d]);
        }
    }
}

// ============================== flash_attention_forward (corrected)
// A threadgroup of 128 threads (4 simdgroups) owns FA_BQ = 32 query rows of one (batch, head);
// simdgroup s owns rows 8s..8s+7. Keys go by in tiles of FA_BK = 32, one key per simd lane for
// the scores; the row max and sum are simd_max / simd_sum over the lanes (8 rows as two float4,
// so 4 collectives per tile). For P V, lane l owns output dims l, l+32, l+64, l+96.
// Threadgroup memory: Q, K and V tiles (3 * 32 * head_dim halves) + P (32 * 32 floats)
// = 192 * head_dim + 4096 bytes: 16384 (64), 19456 (80), 22528 (96), 28672 (128).

struct FlashAttentionParams {
    ulong q_strides[3];     // element strides: batch, head, sequence (the last dim is dense)
    ulong k_strides[3];     // head indexes the kv heads
    ulong v_strides[3];
    ulong o_strides[3];
    ulong mask_strides[2];  // batch (0: one mask for every batch), query row; keys are dense
    uint batch;
    uint num_heads;
    uint num_kv_heads;      // divides num_heads; head h reads kv head h / (num_heads / num_kv_heads)
    uint seq_q;
    uint seq_kv;
    uint head_dim;          // 1..128
    uint kv_offset;         // query row i is at position kv_offset + i
    uint causal;            // nonzero: key j attends to row i when j <= kv_offset + i
    float scale;
};

constant constexpr uint FA_BQ = 32;       // query rows per threadgroup
constant constexpr uint FA_BK = 32;       // keys per tile: one per simd lane
constant constexpr uint FA_THREADS = 128; // 4 simdgroups
constant constexpr uint FA_ROWS = 8;      // query rows per simdgroup
constant constexpr uint FA_DPL = 4;       // output dims per lane: 128 / 32

template <typename MaskT, bool HAS_MASK>
inline void flash_attention_impl(
    device const half* Q, device const half* K, device const half* V, device half* O,
    device const MaskT* mask, constant FlashAttentionParams& p, threadgroup half* smem,
    uint3 tgid, uint tid, uint sg, uint lane)
{
    const uint D = p.head_dim;
    const uint q0 = tgid.x * FA_BQ;
    const uint head = tgid.y;
    const uint batch = tgid.z;
    const uint kv_head = head / (p.num_heads / p.num_kv_heads);
    device const half* Qb = Q + batch * p.q_strides[0] + head * p.q_strides[1];
    device const half* Kb = K + batch * p.k_strides[0] + kv_head * p.k_strides[1];
    device const half* Vb = V + batch * p.v_strides[0] + kv_head * p.v_strides[1];
    device half* Ob = O + batch * p.o_strides[0] + head * p.o_strides[1];

    threadgroup half* Qs = smem;
    threadgroup half* Ks = Qs + FA_BQ * D;
    threadgroup half* Vs = Ks + FA_BK * D;
    threadgroup float* Ps = (threadgroup float*)(Vs + FA_BK * D);

    const uint q_rows = min(FA_BQ, p.seq_q - q0);
    for (uint i = tid; i < FA_BQ * D; i += FA_THREADS) {
        const uint r = i / D;
        Qs[i] = r < q_rows ? Qb[(q0 + r) * p.q_strides[2] + i % D] : half(0);
    }
    // Keys past the last row's causal limit never count: stop there.
    uint kv_end = p.seq_kv;
    if (p.causal != 0) kv_end = min(kv_end, p.kv_offset + q0 + q_rows);

    const uint row0 = sg * FA_ROWS;  // this simdgroup's rows; uniform across its lanes
    const bool active = row0 < q_rows;
    float m[FA_ROWS], l[FA_ROWS], acc[FA_ROWS][FA_DPL];
    for (uint i = 0; i < FA_ROWS; ++i) {
        m[i] = -INFINITY;
        l[i] = 0.0f;
        for (uint k = 0; k < FA_DPL; ++k) acc[i][k] = 0.0f;
    }

    for (uint k0 = 0; k0 < kv_end; k0 += FA_BK) {
        threadgroup_barrier(mem_flags::mem_threadgroup);  // Q loaded; last tile consumed
        for (uint i = tid; i < FA_BK * D; i += FA_THREADS) {
            const uint j = k0 + i / D;
            const uint d = i % D;
            Ks[i] = j < kv_end ? Kb[j * p.k_strides[2] + d] : half(0);
            Vs[i] = j < kv_end ? Vb[j * p.v_strides[2] + d] : half(0);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
        if (!active) continue;

        // Scores: lane = key k0 + lane, for each of this simdgroup's rows (each K element is
        // read once and used for the 8 rows).
        const uint j = k0 + lane;
        float s[FA_ROWS];
        for (uint i = 0; i < FA_ROWS; ++i) s[i] = 0.0f;
        threadgroup const half* krow = Ks + lane * D;
        threadgroup const half* qrows = Qs + row0 * D;
        for (uint d = 0; d < D; ++d) {
            const float kd = float(krow[d]);
            for (uint i = 0; i < FA_ROWS; ++i) s[i] += float(qrows[i * D + d]) * kd;
        }
        for (uint i = 0; i < FA_ROWS; ++i) {
            const uint r = row0 + i;
            const bool attends = r < q_rows && j < kv_end && (p.causal == 0 || j <= p.kv_offset + q0 + r);
            float x = s[i] * p.scale;
            if (HAS_MASK && attends) x += float(mask[batch * p.mask_strides[0] + (q0 + r) * p.mask_strides[1] + j]);
            s[i] = attends ? x : -INFINITY;
        }

        // Online softmax: the tile's row max and row sum across the 32 lanes.
        const float4 mt_lo = simd_max(float4(s[0], s[1], s[2], s[3]));
        const float4 mt_hi = simd_max(float4(s[4], s[5], s[6], s[7]));
        float pr[FA_ROWS], alpha[FA_ROWS];
        for (uint i = 0; i < FA_ROWS; ++i) {
            const float m_new = max(m[i], i < 4 ? mt_lo[i] : mt_hi[i - 4]);
            const float m_use = m_new == -INFINITY ? 0.0f : m_new;  // all masked so far: p = 0
            pr[i] = exp(s[i] - m_use);
            alpha[i] = exp(m[i] - m_use);
            m[i] = m_new;
        }
        const float4 lt_lo = simd_sum(float4(pr[0], pr[1], pr[2], pr[3]));
        const float4 lt_hi = simd_sum(float4(pr[4], pr[5], pr[6], pr[7]));
        for (uint i = 0; i < FA_ROWS; ++i) {
            l[i] = l[i] * alpha[i] + (i < 4 ? lt_lo[i] : lt_hi[i - 4]);
            Ps[(row0 + i) * FA_BK + lane] = pr[i];
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);

        // O = O * alpha + P V, lane l owning dims l + 32k; rows past q_rows have P = 0.
        for (uint i = 0; i < FA_ROWS; ++i)
            for (uint k = 0; k < FA_DPL; ++k) acc[i][k] *= alpha[i];
        for (uint jj = 0; jj < FA_BK; ++jj) {
            for (uint k = 0; k < FA_DPL && lane + 32 * k < D; ++k) {
                const float vd = float(Vs[jj * D + lane + 32 * k]);
                for (uint i = 0; i < FA_ROWS; ++i) acc[i][k] += Ps[(row0 + i) * FA_BK + jj] * vd;
            }
        }
    }

    // A row whose every key is masked out has l = 0: its output is 0 (documented).
    for (uint i = 0; i < FA_ROWS && active && row0 + i < q_rows; ++i) {
        const float inv = l[i] > 0.0f ? 1.0f / l[i] : 0.0f;
        device half* orow = Ob + (q0 + row0 + i) * p.o_strides[2];
        for (uint k = 0; k < FA_DPL && lane + 32 * k < D; ++k) orow[lane + 32 * k] = half(acc[i][k] * inv);
    }
}

kernel void flash_attention_forward(
    device const half* Q [[buffer(0)]],
    device const half* K [[buffer(1)]],
    device const half* V [[buffer(2)]],
    device half* O [[buffer(3)]],
    constant FlashAttentionParams& params [[buffer(4)]],
    threadgroup half* smem [[threadgroup(0)]],
    uint3 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    flash_attention_impl<half, false>(Q, K, V, O, (device const half*)Q, params, smem, tgid, tid, sg, lane);
}

kernel void flash_attention_forward_masked_half(
    device const half* Q [[buffer(0)]],
    device const half* K [[buffer(1)]],
    device const half* V [[buffer(2)]],
    device half* O [[buffer(3)]],
    constant FlashAttentionParams& params [[buffer(4)]],
    device const half* mask [[buffer(5)]],
    threadgroup half* smem [[threadgroup(0)]],
    uint3 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    flash_attention_impl<half, true>(Q, K, V, O, mask, params, smem, tgid, tid, sg, lane);
}

kernel void flash_attention_forward_masked_float(
    device const half* Q [[buffer(0)]],
    device const half* K [[buffer(1)]],
    device const half* V [[buffer(2)]],
    device half* O [[buffer(3)]],
    constant FlashAttentionParams& params [[buffer(4)]],
    device const float* mask [[buffer(5)]],
    threadgroup half* smem [[threadgroup(0)]],
    uint3 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    flash_attention_impl<float, true>(Q, K, V, O, mask, params, smem, tgid, tid, sg, lane);
}

// ============================== decode_attention
// One query token per (batch, head) against kv_len cached keys; grid (num_heads, batch), 128
// threads. Simdgroup s takes the key chunks s, s+4, s+8, ... of 32 keys (one per lane) with its
// own online softmax; the four partial results are merged at the end. Threadgroup memory:
// 3104 bytes of kernel-scope arrays, whatever head_dim (<= 128).

struct DecodeParams {
    ulong q_strides[2];     // batch, head (the query's sequence length is 1)
    ulong k_strides[3];     // batch, kv head, position: any cache layout and capacity
    ulong v_strides[3];
    ulong o_strides[2];
    uint num_heads;
    uint num_kv_heads;
    uint kv_len;            // valid cache entries, >= 1
    uint head_dim;          // 1..128
    float scale;
};

// The decode kernel's body for Q, K, V and O of element type T; the kernel-scope threadgroup
// arrays are declared by each kernel and passed in (q_s: 128, p_s: 4 x 32, m_s and l_s: 4,
// acc_s: 4 x 128 floats).
template <typename T>
static void decode_attention_impl(
    device const T* Q, device const T* K, device const T* V, device T* O, constant DecodeParams& p,
    threadgroup float* q_s, threadgroup float* p_s, threadgroup float* m_s, threadgroup float* l_s,
    threadgroup float* acc_s, uint2 tgid, uint tid, uint sg, uint lane)
{
    const uint D = p.head_dim;
    const uint head = tgid.x;
    const uint batch = tgid.y;
    const uint kv_head = head / (p.num_heads / p.num_kv_heads);
    device const T* Kb = K + batch * p.k_strides[0] + kv_head * p.k_strides[1];
    device const T* Vb = V + batch * p.v_strides[0] + kv_head * p.v_strides[1];
    device const T* q = Q + batch * p.q_strides[0] + head * p.q_strides[1];
    if (tid < D) q_s[tid] = float(q[tid]) * p.scale;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    threadgroup float* p_sg = p_s + 32 * sg;  // this simdgroup's probabilities
    float m = -INFINITY, l = 0.0f;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (uint k0 = sg * 32; k0 < p.kv_len; k0 += 128) {
        const uint j = k0 + lane;
        float s = -INFINITY;
        if (j < p.kv_len) {
            device const T* krow = Kb + j * p.k_strides[2];
            s = 0.0f;
            for (uint d = 0; d < D; ++d) s += q_s[d] * float(krow[d]);
        }
        const float m_new = max(m, simd_max(s));  // finite: key k0 < kv_len exists
        const float pr = exp(s - m_new);
        const float alpha = exp(m - m_new);
        l = l * alpha + simd_sum(pr);
        m = m_new;
        p_sg[lane] = pr;
        simdgroup_barrier(mem_flags::mem_threadgroup);
        const uint n = min(32u, p.kv_len - k0);
        for (uint k = 0; k < 4 && lane + 32 * k < D; ++k) {
            const uint d = lane + 32 * k;
            float a = acc[k] * alpha;
            for (uint jj = 0; jj < n; ++jj) a += p_sg[jj] * float(Vb[(k0 + jj) * p.v_strides[2] + d]);
            acc[k] = a;
        }
        simdgroup_barrier(mem_flags::mem_threadgroup);  // p_s read before the next chunk writes it
    }
    if (lane == 0) {
        m_s[sg] = m;
        l_s[sg] = l;
    }
    for (uint k = 0; k < 4 && lane + 32 * k < D; ++k) acc_s[128 * sg + lane + 32 * k] = acc[k];
    threadgroup_barrier(mem_flags::mem_threadgroup);

    if (tid < D) {
        const float mx = max(max(m_s[0], m_s[1]), max(m_s[2], m_s[3]));
        float num = 0.0f, den = 0.0f;
        for (uint s = 0; s < 4; ++s) {
            if (l_s[s] == 0.0f) continue;  // a simdgroup that got no keys
            const float w = exp(m_s[s] - mx);
            num += acc_s[128 * s + tid] * w;
            den += l_s[s] * w;
        }
        O[batch * p.o_strides[0] + head * p.o_strides[1] + tid] = T(num / den);
    }
}

kernel void decode_attention(
    device const half* Q [[buffer(0)]],
    device const half* K [[buffer(1)]],
    device const half* V [[buffer(2)]],
    device half* O [[buffer(3)]],
    constant DecodeParams& p [[buffer(4)]],
    uint2 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    threadgroup float q_s[128];
    threadgroup float p_s[4 * 32];
    threadgroup float m_s[4];
    threadgroup float l_s[4];
    threadgroup float acc_s[4 * 128];
    decode_attention_impl(Q, K, V, O, p, q_s, p_s, m_s, l_s, acc_s, tgid, tid, sg, lane);
}

// ============================== decode_attention_float
// decode_attention on float Q, K, V and O (a float KV cache; host/model/ uses it).
kernel void decode_attention_float(
    device const float* Q [[buffer(0)]],
    device const float* K [[buffer(1)]],
    device const float* V [[buffer(2)]],
    device float* O [[buffer(3)]],
    constant DecodeParams& p [[buffer(4)]],
    uint2 tgid [[threadgroup_position_in_grid]],
    uint tid [[thread_index_in_threadgroup]],
    uint sg [[simdgroup_index_in_threadgroup]],
    uint lane [[thread_index_in_simdgroup]])
{
    threadgroup float q_s[128];
    threadgroup float p_s[4 * 32];
    threadgroup float m_s[4];
    threadgroup float l_s[4];
    threadgroup float acc_s[4 * 128];
    decode_attention_impl(Q, K, V, O, p, q_s, p_s, m_s, l_s, acc_s, tgid, tid, sg, lane);
}

// ============================== kv_append_float
/// Copies `count` floats of keys and of values into a KV cache: one token's K and V rows
/// (the host binds k and v at the token's offset in the batch buffers, k_cache and v_cache at
/// the cache slot's offset). dispatchThreads(count).
kernel void kv_append_float(
    device const float* k [[buffer(0)]],
    device const float* v [[buffer(1)]],
    device float* k_cache [[buffer(2)]],
    device float* v_cache [[buffer(3)]],
    constant uint& count [[buffer(4)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= count) return;
    k_cache[gid] = k[gid];
    v_cache[gid] = v[gid];
}
