// Two kernels written as llama.cpp's ggml-metal writes its row kernels, for the case files
// ggml_rms_norm.json and ggml_mul_mv.json: compiled in Metal's default fast math, they must
// give the same bits on fibers and in lane loops, under every schedule and worker count
// (issue 28 item 6: before, lane loops in fast math gave schedule-dependent results and `check`
// failed race-free kernels of this shape with race.schedule / mode.divergent).
#include <metal_stdlib>
using namespace metal;

struct rms_norm_args {
  int ne00;    // elements in a row
  int ne00_4;  // ... the part the strided loop covers (ggml passes ne00 or ne00 / 4)
  float eps;
};

// One threadgroup per row: each lane sums the squares of a strided slice, simd_sum per
// simdgroup, the simdgroups' sums through threadgroup memory, then every lane scales its slice.
kernel void rms_norm_rows(constant rms_norm_args& args [[buffer(0)]],
                          device const float* src0 [[buffer(1)]],
                          device float* dst [[buffer(2)]],
                          threadgroup float* shmem_f32 [[threadgroup(0)]],
                          uint3 tgpig [[threadgroup_position_in_grid]],
                          ushort3 tpitg [[thread_position_in_threadgroup]],
                          ushort sgitg [[simdgroup_index_in_threadgroup]],
                          ushort tiisg [[thread_index_in_simdgroup]],
                          ushort3 ntg [[threads_per_threadgroup]]) {
  if (sgitg == 0) shmem_f32[tiisg] = 0.0f;
  device const float* x = src0 + tgpig.x * args.ne00;
  float sumf = 0.0f;
  for (int i00 = tpitg.x; i00 < args.ne00_4; i00 += ntg.x) sumf += x[i00] * x[i00];
  sumf = simd_sum(sumf);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tiisg == 0) shmem_f32[sgitg] = sumf;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  sumf = simd_sum(shmem_f32[tiisg]);
  const float mean = sumf / args.ne00;
  const float scale = 1.0f / sqrt(mean + args.eps);
  device float* y = dst + tgpig.x * args.ne00;
  for (int i00 = tpitg.x; i00 < args.ne00_4; i00 += ntg.x) y[i00] = x[i00] * scale;
}

// The reference: one thread per row, the same formula in a plain loop.
kernel void rms_norm_serial(constant rms_norm_args& args [[buffer(0)]],
                            device const float* src0 [[buffer(1)]],
                            device float* dst [[buffer(2)]],
                            uint row [[thread_position_in_grid]]) {
  device const float* x = src0 + row * args.ne00;
  float sumf = 0.0f;
  for (int i = 0; i < args.ne00; ++i) sumf += x[i] * x[i];
  const float scale = 1.0f / sqrt(sumf / args.ne00 + args.eps);
  for (int i = 0; i < args.ne00; ++i) dst[row * args.ne00 + i] = x[i] * scale;
}

struct mul_mv_args {
  int ne00;  // columns of the matrix, length of the vector
  int ne01;  // rows of the matrix
};

constant int kRowsPerSimdgroup = 4;  // ggml's N_DST

// y = A x, as ggml's mul_mv kernels split it: each simdgroup takes kRowsPerSimdgroup rows, its
// lanes stride over the columns, simd_sum per row, lane 0 writes; rows past ne01 are skipped.
kernel void mul_mv_rows(constant mul_mv_args& args [[buffer(0)]],
                        device const float* src0 [[buffer(1)]],
                        device const float* src1 [[buffer(2)]],
                        device float* dst [[buffer(3)]],
                        uint3 tgpig [[threadgroup_position_in_grid]],
                        ushort tiisg [[thread_index_in_simdgroup]],
                        ushort sgitg [[simdgroup_index_in_threadgroup]],
                        ushort nsg [[simdgroups_per_threadgroup]]) {
  const int first_row = (tgpig.x * nsg + sgitg) * kRowsPerSimdgroup;
  float sumf[kRowsPerSimdgroup] = {0.0f};
  for (int i = tiisg; i < args.ne00; i += 32) {
    const float xi = src1[i];
    for (int r = 0; r < kRowsPerSimdgroup; ++r) {
      if (first_row + r < args.ne01) sumf[r] += src0[(first_row + r) * args.ne00 + i] * xi;
    }
  }
  for (int r = 0; r < kRowsPerSimdgroup; ++r) {
    const float total = simd_sum(sumf[r]);
    if (tiisg == 0 && first_row + r < args.ne01) dst[first_row + r] = total;
  }
}

kernel void mul_mv_serial(constant mul_mv_args& args [[buffer(0)]],
                          device const float* src0 [[buffer(1)]],
                          device const float* src1 [[buffer(2)]],
                          device float* dst [[buffer(3)]],
                          uint row [[thread_position_in_grid]]) {
  float sum = 0.0f;
  for (int i = 0; i < args.ne00; ++i) sum += src0[row * args.ne00 + i] * src1[i];
  dst[row] = sum;
}
