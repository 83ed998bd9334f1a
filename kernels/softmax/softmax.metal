// Row softmax of ADR-003 ("4. Softmax (Standalone)"), in place on x [rows, cols], one
// threadgroup per row. `softmax_as_documented` is the document's kernel as written (renamed);
// `softmax` is the corrected one. docs/findings/softmax.md says what differs and why.
#include <metal_stdlib>
using namespace metal;

// ------------------------------ softmax_as_documented
/// Numerically stable softmax over rows
/// Uses two-pass algorithm: max reduction, then exp and sum
kernel void softmax_as_documented(
    device half* x [[buffer(0)]],
    constant uint& rows [[buffer(1)]],
    constant uint& cols [[buffer(2)]],

    threadgroup float* shared [[threadgroup(0)]],

    uint tid [[thread_index_in_threadgroup]],
    uint tgid [[threadgroup_position_in_grid]])
{
    device half* row = x + tgid * cols;

    // Pass 1: Find max
    float local_max = -INFINITY;
    for (uint i = tid; i < cols; i += 256) {
        local_max = max(local_max, float(row[i]));
    }
    shared[tid] = local_max;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    for (uint stride = 128; stride > 0; stride >>= 1) {
        if (tid < stride) {
            shared[tid] = max(shared[tid], shared[tid + stride]);
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    float row_max = shared[0];

    // Pass 2: Compute exp(x - max) and sum
    float local_sum = 0.0f;
    for (uint i = tid; i < cols; i += 256) {
        float val = exp(float(row[i]) - row_max);
        row[i] = half(val);  // Temporarily store exp values
        local_sum += val;
    }
    shared[tid] = local_sum;
    threadgroup_barrier(mem_flags::mem_threadgroup);

    for (uint stride = 128; stride > 0; stride >>= 1) {
        if (tid < stride) {
            shared[tid] += shared[tid + stride];
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    float row_sum = shared[0];

    // Pass 3: Normalize
    float inv_sum = 1.0f / row_sum;
    for (uint i = tid; i < cols; i += 256) {
        row[i] = half(float(row[i]) * inv_sum);
    }
}

// ------------------------------ softmax (corrected)
// Reduces `value` over the n threads of the threadgroup (any n, power of two or not) with
// max (is_max) or +; every thread gets the result. shared holds n floats.
static float threadgroup_reduce(threadgroup float* shared, float value, uint tid, uint n, bool is_max)
{
    shared[tid] = value;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    uint p = 1;
    while (p * 2 <= n) p *= 2;
    if (tid + p < n) shared[tid] = is_max ? max(shared[tid], shared[tid + p]) : shared[tid] + shared[tid + p];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint stride = p / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            shared[tid] = is_max ? max(shared[tid], shared[tid + stride]) : shared[tid] + shared[tid + stride];
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    float total = shared[0];
    threadgroup_barrier(mem_flags::mem_threadgroup);  // shared may be reused on return
    return total;
}

/// Softmax over each row of x [rows, cols], in place; one threadgroup of any size per row,
/// any cols. exp(x - max) is recomputed in float in the last pass instead of being stored
/// in half; a row whose entries are all -inf (fully masked) becomes zeros.
/// threadgroup(0) holds one float per thread.
kernel void softmax(
    device half* x [[buffer(0)]],
    constant uint& rows [[buffer(1)]],
    constant uint& cols [[buffer(2)]],
    threadgroup float* shared [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]],
    uint tgid [[threadgroup_position_in_grid]],
    uint threads [[threads_per_threadgroup]])
{
    if (tgid >= rows) return;  // uniform across the threadgroup
    device half* row = x + ulong(tgid) * cols;

    float local_max = -INFINITY;
    for (uint i = tid; i < cols; i += threads) local_max = max(local_max, float(row[i]));
    float row_max = threadgroup_reduce(shared, local_max, tid, threads, true);

    float local_sum = 0.0f;
    if (row_max != -INFINITY)
        for (uint i = tid; i < cols; i += threads) local_sum += exp(float(row[i]) - row_max);
    float row_sum = threadgroup_reduce(shared, local_sum, tid, threads, false);

    // Each thread reads and writes only its own elements, so in place needs no barrier here.
    float inv_sum = row_max == -INFINITY ? 0.0f : 1.0f / row_sum;
    for (uint i = tid; i < cols; i += threads)
        row[i] = row_max == -INFINITY ? half(0) : half(exp(float(row[i]) - row_max) * inv_sum);
}
