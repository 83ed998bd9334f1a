// GGML's quantized block formats in MSL: the one definition that the .metal files include
// (`#include "kernels/formats/ggml_blocks_msl.h"`; the kernel families' libraries have the
// project's root among their include directories). ggml_blocks.h is the host's twin; the
// layouts are described there.
#pragma once
#include <metal_stdlib>

struct block_q4_0 {       // 18 bytes, 32 elements
    half d;
    uint8_t qs[16];       // element j in the low nibble of qs[j], element j + 16 in the high
};

struct block_q8_0 {       // 34 bytes, 32 elements, value = qs[j] * d
    half d;
    int8_t qs[32];
};

struct block_q4_K {       // 144 bytes, 256 elements in 8 sub-blocks of 32
    half d;               // scale of the 6-bit sub-block scales
    half dmin;            // scale of the 6-bit sub-block mins
    uint8_t scales[12];   // 8 scales and 8 mins, 6 bits each
    uint8_t qs[128];      // 64-element chunk c: qs[32c + l] low nibble = element 64c + l, high = 64c + 32 + l
};

struct block_q5_K {       // 176 bytes: block_q4_K plus a fifth bit per element
    half d;
    half dmin;
    uint8_t scales[12];
    uint8_t qh[32];       // bit s of qh[l] is the high bit of element 32s + l
    uint8_t qs[128];
};

static_assert(sizeof(block_q4_0) == 18 && sizeof(block_q8_0) == 34, "GGML block sizes");
static_assert(sizeof(block_q4_K) == 144 && sizeof(block_q5_K) == 176, "GGML block sizes");

// Scale and min of sub-block j (0..7) of a K-quant super-block's packed scales (GGML's
// get_scale_min_k4; ggml_blocks.h's k_scale_min on the host).
static inline void scale_min_k4(uint j, device const uint8_t* q, thread float& sc, thread float& mn)
{
    if (j < 4) {
        sc = float(q[j] & 63);
        mn = float(q[j + 4] & 63);
    } else {
        sc = float((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        mn = float((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}
