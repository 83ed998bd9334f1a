// bounds.private: an access outside a thread's private array (thread address space). The
// private-bounds pass checks it before the optimizer, which may delete such a store.
#include <metal_stdlib>
using namespace metal;

// Threads 8..15 write local[8], one past the end of float local[8].
kernel void planted_private_write_past_end(device const float* in [[buffer(0)]],
                                           device float* out [[buffer(1)]],
                                           uint tid [[thread_position_in_threadgroup]]) {
  float local[8];
  for (uint i = 0; i < 8; ++i) local[i] = in[tid] * float(i);
  local[min(tid, 8u)] = 1.0f;  // PLANT: planted_private_write_past_end
  out[tid] = local[tid % 8];
}

// Threads 8..15 read local[8].
kernel void planted_private_read_past_end(device const float* in [[buffer(0)]],
                                          device float* out [[buffer(1)]],
                                          uint tid [[thread_position_in_threadgroup]]) {
  float local[8];
  for (uint i = 0; i < 8; ++i) local[i] = in[tid] + float(i);
  out[tid] = local[min(tid, 8u)];  // PLANT: planted_private_read_past_end
}

// Thread 0 writes local[-1].
kernel void planted_private_negative_index(device const float* in [[buffer(0)]],
                                           device float* out [[buffer(1)]],
                                           uint tid [[thread_position_in_threadgroup]]) {
  float local[8];
  for (uint i = 0; i < 8; ++i) local[i] = in[tid];
  local[int(tid % 8) - 1] = 2.0f;  // PLANT: planted_private_negative_index
  out[tid] = local[(tid + 3) % 8];
}

// MLX's layer_norm shape: a loop one step too long. At -O2 the optimizer deletes the store past
// the end (undefined behaviour), so only a check made before it sees the write.
kernel void planted_private_loop_past_end(device const float* in [[buffer(0)]],
                                          device float* out [[buffer(1)]],
                                          uint tid [[thread_position_in_threadgroup]]) {
  float local[8];
  for (int i = 0; i <= 8; ++i) local[i] = in[tid] * float(i);  // PLANT: planted_private_loop_past_end
  out[tid] = local[tid % 8];
}
