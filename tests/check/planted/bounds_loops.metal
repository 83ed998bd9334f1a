// bounds.device in loops whose range test the access-check pass hoists before the loop
// (docs/checks.md, "Range tests hoisted out of loops"): each range runs past the end only at its
// last iteration, so the hoisted test fails and the accesses are tested one by one, and the
// report names the access, thread and line as a test per access would. Each kernel reads a
// 101-float buffer bound at byte offset 4 (100 floats): the read past its end is 4 bytes past the
// buffer and 12 before its guard page, which only the access shadow sees.
#include <metal_stdlib>
using namespace metal;

// Each of 4 threads sums its 25 floats, one too many: thread 3's last iteration reads in[100].
kernel void planted_oob_loop_last(device const float* in [[buffer(0)]],
                                  device float* out [[buffer(1)]],
                                  constant uint& n [[buffer(2)]],
                                  uint gid [[thread_position_in_grid]]) {
  device const float* mine = in + ulong(gid) * n;
  float sum = 0.0f;
  for (uint i = 0; i <= n; i++) {
    sum += mine[i];  // PLANT: planted_oob_loop_last
  }
  out[gid] = sum;
}

// 32 threads stride over the 100 floats, up to and with index 100: thread 4 (4, 36, 68, 100)
// reads past the end at the far end of its stride.
kernel void planted_oob_strided_far_end(device const float* in [[buffer(0)]],
                                        device float* out [[buffer(1)]],
                                        constant uint& n [[buffer(2)]],
                                        uint tid [[thread_index_in_threadgroup]],
                                        uint threads [[threads_per_threadgroup]]) {
  float sum = 0.0f;
  for (uint i = tid; i <= n; i += threads) {
    sum += in[i];  // PLANT: planted_oob_strided_far_end
  }
  out[tid] = sum;
}

// 32 threads scale the 100 floats in place, strided, up to and with index 100: thread 4 (4, 36,
// 68, 100) writes past the end at the far end of its stride. A loop that stores through its
// strided index runs across lanes in lane loops (docs/lanes.md, "Strided stores"); the report
// is the same.
kernel void planted_oob_strided_store(device float* data [[buffer(0)]],
                                      device float* out [[buffer(1)]],
                                      constant uint& n [[buffer(2)]],
                                      uint tid [[thread_index_in_threadgroup]],
                                      uint threads [[threads_per_threadgroup]]) {
  for (uint i = tid; i <= n; i += threads) {
    data[i] = float(i) * 2.0f;  // PLANT: planted_oob_strided_store
  }
  out[tid] = float(tid);
}

// 4 threads each sum rows of `cols` floats (5 rows of 5 each, one row too many): the range of
// the two loops runs past the end only in the outer loop's last iteration, where thread 3 reads
// in[100].
kernel void planted_oob_nested_last_row(device const float* in [[buffer(0)]],
                                        device float* out [[buffer(1)]],
                                        constant uint& cols [[buffer(2)]],
                                        uint gid [[thread_position_in_grid]]) {
  const uint rows = 25 / cols;
  device const float* mine = in + ulong(gid) * rows * cols;
  float sum = 0.0f;
  for (uint row = 0; row <= rows; row++) {
    for (uint c = 0; c < cols; c++) {
      sum += mine[ulong(row) * cols + c] * float(c + 1);  // PLANT: planted_oob_nested_last_row
    }
  }
  out[gid] = sum;
}

// One simdgroup sums the 100 floats in rounds of `width` (32, not known to the compiler), each a
// per-lane strided loop and a simd_sum, up to and with index 100: in the last round lane 4 reads
// in[100]. The round's index crosses the simd_sum in each lane's frame, as the multi-token
// mat-vec's token group does: a lane loop's range test bounds it by the lanes' slots
// (docs/checks.md, "A lane loop's range test"), finds the range not plain in the last round, and
// the accesses are tested one by one.
kernel void planted_oob_rounds_last(device const float* in [[buffer(0)]],
                                    device float* out [[buffer(1)]],
                                    constant uint& n [[buffer(2)]],
                                    uint lane [[thread_index_in_simdgroup]]) {
  const uint width = 32 * (1 + n / 4096);
  float total = 0.0f;
  for (uint r = 0; r <= n; r += width) {
    float mine = 0.0f;
    for (uint i = r + lane; i < min(r + width, n + 1); i += 32) {
      mine += in[i];  // PLANT: planted_oob_rounds_last
    }
    total += simd_sum(mine);
  }
  out[lane] = total;
}
