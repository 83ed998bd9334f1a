// Quantized matrix multiply of ADR-003 ("2. Quantized Matrix Multiplication"):
// C [M, N] (half) = A [M, K] (block-quantized, row-major, blocks along K) x B [K, N] (half).
// One thread per C element; grid [N, M]. N = 1 is the mat-vec of token generation.
//
// `*_as_documented` are the document's kernels as written (renamed); the others read GGML's
// block layouts exactly (docs/kernels/quantized_matmul.md describes each layout).
#include <metal_stdlib>
using namespace metal;
#include "kernels/formats/ggml_blocks_msl.h"

// ------------------------------ matmul_q4_0_as_documented
struct Q4_0_Block {
    half scale;           // Shared scale for 32 values
    uint8_t quants[16];   // 32 × 4-bit values packed into 16 bytes
};

/// Q4_0 dequantize and matrix multiply
/// A: quantized weights [M, K] in Q4_0 format
/// B: activations [K, N] in fp16
/// C: output [M, N] in fp16
kernel void matmul_q4_0_as_documented(
    device const Q4_0_Block* A [[buffer(0)]],
    device const half* B [[buffer(1)]],
    device half* C [[buffer(2)]],
    constant uint& M [[buffer(3)]],
    constant uint& N [[buffer(4)]],
    constant uint& K [[buffer(5)]],

    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= N || gid.y >= M) return;

    const uint BLOCK_SIZE = 32;
    uint num_blocks_k = K / BLOCK_SIZE;

    float sum = 0.0f;

    for (uint block = 0; block < num_blocks_k; block++) {
        uint block_idx = gid.y * num_blocks_k + block;
        Q4_0_Block blk = A[block_idx];
        float scale = float(blk.scale);

        uint k_base = block * BLOCK_SIZE;

        // Process 32 quantized values (16 bytes, 2 values per byte)
        for (uint i = 0; i < 16; i++) {
            uint8_t packed = blk.quants[i];

            // Low 4 bits
            int q_lo = int(packed & 0x0F) - 8;
            float a_lo = float(q_lo) * scale;
            sum += a_lo * float(B[(k_base + i * 2) * N + gid.x]);

            // High 4 bits
            int q_hi = int(packed >> 4) - 8;
            float a_hi = float(q_hi) * scale;
            sum += a_hi * float(B[(k_base + i * 2 + 1) * N + gid.x]);
        }
    }

    C[gid.y * N + gid.x] = half(sum);
}

// ------------------------------ matmul_q8_0_as_documented
/// Q8_0 dequantize and matrix multiply
/// Higher precision variant for quality-sensitive layers
kernel void matmul_q8_0_as_documented(
    device const half* A_scales [[buffer(0)]],
    device const int8_t* A_quants [[buffer(1)]],
    device const half* B [[buffer(2)]],
    device half* C [[buffer(3)]],
    constant uint& M [[buffer(4)]],
    constant uint& N [[buffer(5)]],
    constant uint& K [[buffer(6)]],

    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= N || gid.y >= M) return;

    const uint BLOCK_SIZE = 32;
    uint num_blocks_k = K / BLOCK_SIZE;

    float sum = 0.0f;

    for (uint block = 0; block < num_blocks_k; block++) {
        uint block_idx = gid.y * num_blocks_k + block;
        float scale = float(A_scales[block_idx]);
        uint k_base = block * BLOCK_SIZE;

        for (uint i = 0; i < BLOCK_SIZE; i++) {
            int8_t q = A_quants[block_idx * BLOCK_SIZE + i];
            float a = float(q) * scale;
            sum += a * float(B[(k_base + i) * N + gid.x]);
        }
    }

    C[gid.y * N + gid.x] = half(sum);
}

// ------------------------------ GGML blocks: kernels/formats/ggml_blocks_msl.h

// ------------------------------ matmul_q4_0
/// C = A x B with A in GGML's block_q4_0. The host rejects K not a multiple of 32.
kernel void matmul_q4_0(
    device const block_q4_0* A [[buffer(0)]],
    device const half* B [[buffer(1)]],
    device half* C [[buffer(2)]],
    constant uint& M [[buffer(3)]],
    constant uint& N [[buffer(4)]],
    constant uint& K [[buffer(5)]],
    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= N || gid.y >= M) return;
    uint blocks = K / 32;
    device const block_q4_0* row = A + ulong(gid.y) * blocks;
    float sum = 0.0f;
    for (uint b = 0; b < blocks; b++) {
        device const half* col = B + ulong(b * 32) * N + gid.x;
        float part = 0.0f;
        for (uint j = 0; j < 16; j++) {
            uint8_t packed = row[b].qs[j];
            part += float(int(packed & 0x0F) - 8) * float(col[ulong(j) * N]);
            part += float(int(packed >> 4) - 8) * float(col[ulong(j + 16) * N]);
        }
        sum += float(row[b].d) * part;
    }
    C[ulong(gid.y) * N + gid.x] = half(sum);
}

// ------------------------------ matmul_q8_0
/// C = A x B with A in GGML's block_q8_0 (scale and quants interleaved per block, as in a
/// GGUF file). The host rejects K not a multiple of 32.
kernel void matmul_q8_0(
    device const block_q8_0* A [[buffer(0)]],
    device const half* B [[buffer(1)]],
    device half* C [[buffer(2)]],
    constant uint& M [[buffer(3)]],
    constant uint& N [[buffer(4)]],
    constant uint& K [[buffer(5)]],
    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= N || gid.y >= M) return;
    uint blocks = K / 32;
    device const block_q8_0* row = A + ulong(gid.y) * blocks;
    float sum = 0.0f;
    for (uint b = 0; b < blocks; b++) {
        device const half* col = B + ulong(b * 32) * N + gid.x;
        float part = 0.0f;
        for (uint j = 0; j < 32; j++) part += float(row[b].qs[j]) * float(col[ulong(j) * N]);
        sum += float(row[b].d) * part;
    }
    C[ulong(gid.y) * N + gid.x] = half(sum);
}

// ------------------------------ matmul_q4_k
/// C = A x B with A in GGML's block_q4_K: element = d * sc * q - dmin * mn, q in 0..15.
/// The host rejects K not a multiple of 256.
kernel void matmul_q4_k(
    device const block_q4_K* A [[buffer(0)]],
    device const half* B [[buffer(1)]],
    device half* C [[buffer(2)]],
    constant uint& M [[buffer(3)]],
    constant uint& N [[buffer(4)]],
    constant uint& K [[buffer(5)]],
    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= N || gid.y >= M) return;
    uint blocks = K / 256;
    device const block_q4_K* row = A + ulong(gid.y) * blocks;
    float sum = 0.0f;
    for (uint b = 0; b < blocks; b++) {
        float d = float(row[b].d), dmin = float(row[b].dmin);
        for (uint s = 0; s < 8; s++) {  // sub-block s: elements 32s .. 32s + 31
            float sc, mn;
            scale_min_k4(s, row[b].scales, sc, mn);
            device const uint8_t* q = row[b].qs + 32 * (s / 2);
            device const half* col = B + ulong(b * 256 + 32 * s) * N + gid.x;
            float qb = 0.0f, bsum = 0.0f;
            for (uint l = 0; l < 32; l++) {
                float v = float(col[ulong(l) * N]);
                uint nib = (s & 1) ? (q[l] >> 4) : (q[l] & 0xF);
                qb += float(nib) * v;
                bsum += v;
            }
            sum += d * sc * qb - dmin * mn * bsum;
        }
    }
    C[ulong(gid.y) * N + gid.x] = half(sum);
}

// ------------------------------ matmul_q5_k
/// C = A x B with A in GGML's block_q5_K: q = nibble + 16 * high bit, in 0..31.
/// The host rejects K not a multiple of 256.
kernel void matmul_q5_k(
    device const block_q5_K* A [[buffer(0)]],
    device const half* B [[buffer(1)]],
    device half* C [[buffer(2)]],
    constant uint& M [[buffer(3)]],
    constant uint& N [[buffer(4)]],
    constant uint& K [[buffer(5)]],
    uint2 gid [[thread_position_in_grid]])
{
    if (gid.x >= N || gid.y >= M) return;
    uint blocks = K / 256;
    device const block_q5_K* row = A + ulong(gid.y) * blocks;
    float sum = 0.0f;
    for (uint b = 0; b < blocks; b++) {
        float d = float(row[b].d), dmin = float(row[b].dmin);
        for (uint s = 0; s < 8; s++) {
            float sc, mn;
            scale_min_k4(s, row[b].scales, sc, mn);
            device const uint8_t* q = row[b].qs + 32 * (s / 2);
            device const half* col = B + ulong(b * 256 + 32 * s) * N + gid.x;
            float qb = 0.0f, bsum = 0.0f;
            for (uint l = 0; l < 32; l++) {
                float v = float(col[ulong(l) * N]);
                uint nib = (s & 1) ? (q[l] >> 4) : (q[l] & 0xF);
                uint hi = (row[b].qh[l] >> s) & 1;
                qb += float(nib + 16 * hi) * v;
                bsum += v;
            }
            sum += d * sc * qb - dmin * mn * bsum;
        }
    }
    C[ulong(gid.y) * N + gid.x] = half(sum);
}
