// Element-wise kernels of ADR-003 ("3. Elementwise Operations"): SiLU, GELU (tanh form),
// RMSNorm, RoPE, plus the multiply and SwiGLU steps of the FFN (Forward() calls
// SiLU then Multiply; the document shows no kernel for Multiply).
//
// `*_as_documented` kernels are the document's code as written (renamed only); the kernels
// without the suffix are the corrected ones. docs/findings/elementwise.md says what differs.
#include <metal_stdlib>
using namespace metal;

// ------------------------------ silu (the document's kernel: correct as written)
/// SiLU activation: x * sigmoid(x), in place.
kernel void silu(
    device half* x [[buffer(0)]],
    constant uint& count [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= count) return;

    float val = float(x[gid]);
    float sigmoid_val = 1.0f / (1.0f + exp(-val));
    x[gid] = half(val * sigmoid_val);
}

// ------------------------------ gelu (the document's kernel: correct as written)
/// GELU activation (tanh approximation), in place.
kernel void gelu(
    device half* x [[buffer(0)]],
    constant uint& count [[buffer(1)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= count) return;

    float val = float(x[gid]);
    // Approximate: 0.5 * x * (1 + tanh(sqrt(2/π) * (x + 0.044715 * x³)))
    const float SQRT_2_OVER_PI = 0.7978845608f;
    float x3 = val * val * val;
    float inner = SQRT_2_OVER_PI * (val + 0.044715f * x3);
    x[gid] = half(0.5f * val * (1.0f + tanh(inner)));
}

// ------------------------------ multiply
/// out = a * b, element-wise (the FFN's gate * up). out may alias a or b.
kernel void multiply(
    device const half* a [[buffer(0)]],
    device const half* b [[buffer(1)]],
    device half* out [[buffer(2)]],
    constant uint& count [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= count) return;
    out[gid] = half(float(a[gid]) * float(b[gid]));
}

// ------------------------------ swiglu
// silu(g) * u in float: the one formula of swiglu and swiglu_float.
static float silu_times(float g, float u) { return g / (1.0f + exp(-g)) * u; }

/// out = silu(gate) * up: the SiLU and Multiply steps fused, rounding to half once.
kernel void swiglu(
    device const half* gate [[buffer(0)]],
    device const half* up [[buffer(1)]],
    device half* out [[buffer(2)]],
    constant uint& count [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= count) return;
    out[gid] = half(silu_times(float(gate[gid]), float(up[gid])));
}

// ------------------------------ rms_norm_as_documented
/// RMSNorm as written in ADR-003: strides of 256 and a tree from 128, whatever the
/// threadgroup size; threadgroup(0) holds one float per thread.
kernel void rms_norm_as_documented(
    device const half* input [[buffer(0)]],
    device const half* weight [[buffer(1)]],
    device half* output [[buffer(2)]],
    constant uint& hidden_dim [[buffer(3)]],
    constant float& eps [[buffer(4)]],

    threadgroup float* shared [[threadgroup(0)]],

    uint tid [[thread_index_in_threadgroup]],
    uint tgid [[threadgroup_position_in_grid]])
{
    // Each threadgroup processes one row (one token)
    device const half* row_in = input + tgid * hidden_dim;
    device half* row_out = output + tgid * hidden_dim;

    // Compute sum of squares (reduction)
    float local_sum = 0.0f;
    for (uint i = tid; i < hidden_dim; i += 256) {
        float val = float(row_in[i]);
        local_sum += val * val;
    }
    shared[tid] = local_sum;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    // Tree reduction
    for (uint stride = 128; stride > 0; stride >>= 1) {
        if (tid < stride) {
            shared[tid] += shared[tid + stride];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }

    float rms = rsqrt(shared[0] / float(hidden_dim) + eps);

    // Normalize and apply weight
    for (uint i = tid; i < hidden_dim; i += 256) {
        float val = float(row_in[i]) * rms * float(weight[i]);
        row_out[i] = half(val);
    }
}

// ------------------------------ rms_norm (corrected)
// Sum of `shared[0..n)` into shared[0] for any n (power of two or not): fold the part above
// the largest power of two below n, then halve.
static float threadgroup_sum(threadgroup float* shared, float value, uint tid, uint n)
{
    shared[tid] = value;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint p = 1;
    while (p * 2 <= n) p *= 2;
    if (tid + p < n) shared[tid] += shared[tid + p];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = p / 2; stride > 0; stride >>= 1) {
        if (tid < stride) shared[tid] += shared[tid + stride];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    float total = shared[0];
    threadgroup_barrier(mem_flags::mem_threadgroup);  // shared is free again on return
    return total;
}

template <typename T>
static void rms_norm_row(device const T* input, device const T* weight,
                         device T* output, uint hidden_dim, float eps, float weight_offset,
                         threadgroup float* shared, uint tid, uint tgid, uint threads)
{
    device const T* row_in = input + ulong(tgid) * hidden_dim;
    device T* row_out = output + ulong(tgid) * hidden_dim;
    float local_sum = 0.0f;
    for (uint i = tid; i < hidden_dim; i += threads) {
        float val = float(row_in[i]);
        local_sum += val * val;
    }
    float sum = threadgroup_sum(shared, local_sum, tid, threads);
    float rms = rsqrt(sum / float(hidden_dim) + eps);
    for (uint i = tid; i < hidden_dim; i += threads) {
        row_out[i] = T(float(row_in[i]) * rms * (weight_offset + float(weight[i])));
    }
}

/// RMSNorm, Llama form: x * rsqrt(mean(x²) + eps) * weight. One threadgroup per row, any
/// threadgroup size; threadgroup(0) holds one float per thread.
kernel void rms_norm(
    device const half* input [[buffer(0)]],
    device const half* weight [[buffer(1)]],
    device half* output [[buffer(2)]],
    constant uint& hidden_dim [[buffer(3)]],
    constant float& eps [[buffer(4)]],
    threadgroup float* shared [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]],
    uint tgid [[threadgroup_position_in_grid]],
    uint threads [[threads_per_threadgroup]])
{
    rms_norm_row(input, weight, output, hidden_dim, eps, 0.0f, shared, tid, tgid, threads);
}

/// RMSNorm, Gemma form: x * rsqrt(mean(x²) + eps) * (1 + weight), with the stored weight
/// (not the precomputed 1 + weight, which loses bits in half for small weights).
kernel void rms_norm_plus_one(
    device const half* input [[buffer(0)]],
    device const half* weight [[buffer(1)]],
    device half* output [[buffer(2)]],
    constant uint& hidden_dim [[buffer(3)]],
    constant float& eps [[buffer(4)]],
    threadgroup float* shared [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]],
    uint tgid [[threadgroup_position_in_grid]],
    uint threads [[threads_per_threadgroup]])
{
    rms_norm_row(input, weight, output, hidden_dim, eps, 1.0f, shared, tid, tgid, threads);
}

// ------------------------------ rope_as_documented
/// RoPE as written in ADR-003: one head count for Q and K.
kernel void rope_as_documented(
    device half* q [[buffer(0)]],
    device half* k [[buffer(1)]],
    constant uint& seq_len [[buffer(2)]],
    constant uint& num_heads [[buffer(3)]],
    constant uint& head_dim [[buffer(4)]],
    constant uint& position_offset [[buffer(5)]],  // For KV-cache continuation
    constant float& theta_base [[buffer(6)]],      // Usually 10000.0

    uint3 gid [[thread_position_in_grid]])  // [head_dim/2, num_heads, seq_len]
{
    uint half_dim = head_dim / 2;
    if (gid.x >= half_dim) return;

    uint pos = gid.z + position_offset;
    uint head = gid.y;
    uint d = gid.x;

    // Compute rotation angle
    float freq = 1.0f / pow(theta_base, float(2 * d) / float(head_dim));
    float angle = float(pos) * freq;
    float cos_val = cos(angle);
    float sin_val = sin(angle);

    // Index into Q and K
    uint base_idx = (gid.z * num_heads + head) * head_dim;
    uint idx_real = base_idx + d;
    uint idx_imag = base_idx + d + half_dim;

    // Rotate Q
    float q_real = float(q[idx_real]);
    float q_imag = float(q[idx_imag]);
    q[idx_real] = half(q_real * cos_val - q_imag * sin_val);
    q[idx_imag] = half(q_real * sin_val + q_imag * cos_val);

    // Rotate K
    float k_real = float(k[idx_real]);
    float k_imag = float(k[idx_imag]);
    k[idx_real] = half(k_real * cos_val - k_imag * sin_val);
    k[idx_imag] = half(k_real * sin_val + k_imag * cos_val);
}

// ------------------------------ rope (corrected)
struct RopeParams {
    uint seq_len;
    uint q_heads;          // query heads
    uint kv_heads;         // key heads (fewer under grouped-query attention)
    uint head_dim;         // even
    uint position_offset;  // tokens already in the KV cache
    float theta_base;      // per layer (Gemma 3: 10000 local, 1000000 global)
};

// Rotates one pair (element d, element d + head_dim/2) of one head of one token, for gid =
// (d, head, token) of the rope grid; T is the element type of Q and K.
template <typename T>
static void rope_pair(device T* q, device T* k, constant RopeParams& p, uint3 gid)
{
    uint half_dim = p.head_dim / 2;
    if (gid.x >= half_dim || gid.y >= p.q_heads + p.kv_heads || gid.z >= p.seq_len) return;

    uint d = gid.x;
    float freq = 1.0f / pow(p.theta_base, float(2 * d) / float(p.head_dim));
    float angle = float(gid.z + p.position_offset) * freq;
    float cos_val = cos(angle);
    float sin_val = sin(angle);

    bool is_q = gid.y < p.q_heads;
    device T* x = is_q ? q : k;
    uint heads = is_q ? p.q_heads : p.kv_heads;
    uint head = is_q ? gid.y : gid.y - p.q_heads;
    ulong base = (ulong(gid.z) * heads + head) * p.head_dim;

    float re = float(x[base + d]);
    float im = float(x[base + d + half_dim]);
    x[base + d] = T(re * cos_val - im * sin_val);
    x[base + d + half_dim] = T(re * sin_val + im * cos_val);
}

/// RoPE, non-interleaved halves (element d pairs with d + head_dim/2), in place on
/// Q [seq_len, q_heads, head_dim] and K [seq_len, kv_heads, head_dim].
/// Grid: [head_dim/2, q_heads + kv_heads, seq_len]; y < q_heads is a Q head, the rest K heads.
kernel void rope(
    device half* q [[buffer(0)]],
    device half* k [[buffer(1)]],
    constant RopeParams& p [[buffer(2)]],
    uint3 gid [[thread_position_in_grid]])
{
    rope_pair(q, k, p, gid);
}

// ============================== float variants
// The same kernels on float activations, for pipelines that keep the residual stream and the
// projections in float (the multi-token mat-vec's input and output, host/model/): one
// formula each, shared with the half kernels above.

// ------------------------------ rms_norm_float
/// rms_norm with float input, weight and output.
kernel void rms_norm_float(
    device const float* input [[buffer(0)]],
    device const float* weight [[buffer(1)]],
    device float* output [[buffer(2)]],
    constant uint& hidden_dim [[buffer(3)]],
    constant float& eps [[buffer(4)]],
    threadgroup float* shared [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]],
    uint tgid [[threadgroup_position_in_grid]],
    uint threads [[threads_per_threadgroup]])
{
    rms_norm_row(input, weight, output, hidden_dim, eps, 0.0f, shared, tid, tgid, threads);
}

// ------------------------------ rope_float
/// rope on float Q and K, in place.
kernel void rope_float(
    device float* q [[buffer(0)]],
    device float* k [[buffer(1)]],
    constant RopeParams& p [[buffer(2)]],
    uint3 gid [[thread_position_in_grid]])
{
    rope_pair(q, k, p, gid);
}

// ------------------------------ swiglu_float
/// out = silu(gate) * up on floats. out may alias gate or up.
kernel void swiglu_float(
    device const float* gate [[buffer(0)]],
    device const float* up [[buffer(1)]],
    device float* out [[buffer(2)]],
    constant uint& count [[buffer(3)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= count) return;
    out[gid] = silu_times(gate[gid], up[gid]);
}
