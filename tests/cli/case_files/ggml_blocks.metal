// A quantized mat-vec written as llama.cpp's ggml-metal writes its kernels, for the case file
// ggml_q4_0.json: every buffer argument is `device const char *` / `device char *`, cast to
// blocks and floats inside the kernel. The case file binds typed buffers to them (issue 25
// item 6): Q4_0 blocks filled with finite scales ({"blocks": "q4_0"}), and float vectors,
// filled, compared and tolerated as floats.
#include <metal_stdlib>
using namespace metal;

struct block_q4_0 {  // ggml's: 32 values, value j = (nibble - 8) * d
  half d;
  uint8_t qs[16];    // value j < 16 in the low nibble of qs[j], j >= 16 in the high of qs[j - 16]
};

struct q4_0_args {
  int ne00;  // columns: a multiple of 32
  int ne01;  // rows
};

// One simdgroup per row: lanes stride over the row's blocks, simd_sum adds their sums.
kernel void mul_mv_q4_0_rows(constant q4_0_args& args [[buffer(0)]],
                             device const char* src0 [[buffer(1)]],
                             device const char* src1 [[buffer(2)]],
                             device char* dst [[buffer(3)]],
                             uint row [[threadgroup_position_in_grid]],
                             ushort tiisg [[thread_index_in_simdgroup]]) {
  const int nb = args.ne00 / 32;
  device const block_q4_0* x = (device const block_q4_0*)src0 + row * nb;
  device const float* y = (device const float*)src1;
  float sum = 0.0f;
  for (int ib = tiisg; ib < nb; ib += 32) {
    const float d = x[ib].d;
    float block_sum = 0.0f;
    for (int j = 0; j < 16; ++j) {
      block_sum += (float(x[ib].qs[j] & 0x0F) - 8.0f) * y[ib * 32 + j];
      block_sum += (float(x[ib].qs[j] >> 4) - 8.0f) * y[ib * 32 + j + 16];
    }
    sum += d * block_sum;
  }
  sum = simd_sum(sum);
  if (tiisg == 0) ((device float*)dst)[row] = sum;
}

// The reference: one thread per row, value by value in column order.
kernel void mul_mv_q4_0_serial(constant q4_0_args& args [[buffer(0)]],
                               device const char* src0 [[buffer(1)]],
                               device const char* src1 [[buffer(2)]],
                               device char* dst [[buffer(3)]],
                               uint row [[thread_position_in_grid]]) {
  device const block_q4_0* x = (device const block_q4_0*)src0 + row * (args.ne00 / 32);
  device const float* y = (device const float*)src1;
  float sum = 0.0f;
  for (int k = 0; k < args.ne00; ++k) {
    const int j = k % 32;
    const uint8_t byte = x[k / 32].qs[j % 16];
    const float q = float(j < 16 ? (byte & 0x0F) : (byte >> 4)) - 8.0f;
    sum += float(x[k / 32].d) * q * y[k];
  }
  ((device float*)dst)[row] = sum;
}
