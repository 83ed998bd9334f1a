#pragma once
// The quantized mat-mul family's fast native baseline (kernels/spec/baseline.h): C = dequant(A) x
// B in float, rows of A over the OpenMP threads, each block's dot product a loop the compiler
// vectorizes (as llama.cpp's CPU kernels, without their integer dot products). Q4_0, Q8_0 and
// the K-quants Q4_K, Q5_K (each sub-block's min term from a per-column sum of its 32 inputs).
#include <cstdint>

#include "kernels/quantized_matmul/quantized_matmul_ref.h"
#include "kernels/spec/baseline.h"

namespace metalsim::kernels::quantized_matmul {

// A: m rows of blocks_per_row blocks (k values); B [k, n] half row-major; C [m, n] half. Block
// is BlockQ4_0, BlockQ8_0, BlockQ4_K or BlockQ5_K (instantiated in the .cpp, which is compiled
// for speed).
template <class Block>
void matmul_baseline(const Block* a, int64_t blocks_per_row, const half_t* b, half_t* c, int64_t m,
                     int64_t n, int64_t k);

}  // namespace metalsim::kernels::quantized_matmul
