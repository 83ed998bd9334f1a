// A gemv shaped like MLX's (issue 25 item 3): one thread per output row, and the bounds guard
// returns the threads past the last row *before* the threadgroup barriers that stage x in
// threadgroup memory. Apple GPUs run this to the end (the barriers wait for the threads still
// running); metalsim does the same and files barrier.exited as a portability warning.
#include <metal_stdlib>
using namespace metal;

// y[row] = sum_k W[row * K + k] * x[k], k ascending. dims = {M, K}; xs: tg floats.
kernel void gemv_early_return(device const float* W [[buffer(0)]],
                              device const float* x [[buffer(1)]],
                              device float* y [[buffer(2)]],
                              constant uint* dims [[buffer(3)]],
                              threadgroup float* xs [[threadgroup(0)]],
                              uint tid [[thread_index_in_threadgroup]],
                              uint tg_size [[threads_per_threadgroup]],
                              uint tgid [[threadgroup_position_in_grid]]) {
  const uint M = dims[0], K = dims[1];
  const uint row = tgid * tg_size + tid;
  if (row >= M) return;  // before the barriers: the last threadgroup's extra threads are gone
  const uint live = min(tg_size, M - tgid * tg_size);  // threads 0..live-1 stay
  float acc = 0.0f;
  for (uint k0 = 0; k0 < K; k0 += tg_size) {
    for (uint k = tid; k < tg_size && k0 + k < K; k += live) xs[k] = x[k0 + k];
    threadgroup_barrier(mem_flags::mem_threadgroup);  // marker: staged
    for (uint k = 0; k < tg_size && k0 + k < K; ++k) acc += W[row * K + k0 + k] * xs[k];
    threadgroup_barrier(mem_flags::mem_threadgroup);  // marker: consumed
  }
  y[row] = acc;
}

// The scalar reference: the same sum in the same order, one thread per row, no barrier.
kernel void gemv_scalar(device const float* W [[buffer(0)]],
                        device const float* x [[buffer(1)]],
                        device float* y [[buffer(2)]],
                        constant uint* dims [[buffer(3)]],
                        uint row [[thread_position_in_grid]]) {
  const uint M = dims[0], K = dims[1];
  if (row >= M) return;
  float acc = 0.0f;
  for (uint k = 0; k < K; ++k) acc += W[row * K + k] * x[k];
  y[row] = acc;
}
