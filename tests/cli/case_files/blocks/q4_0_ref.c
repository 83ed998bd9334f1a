/* The reference of blocks/q4_0_function_ref.json, in plain C: dst[r] = sum_j src0[r][j] * src1[j],
 * where src0, a buffer of Q4_0 blocks, arrives as the values its blocks hold (32 per block of 18
 * bytes), not as its bytes. A count that is not 32 values per block is an error (returns 2). */
#include <metalsim/case_reference.h>

int q4_0_matvec_ref(const metalsim_case* c) {
  const metalsim_case_buffer* a = metalsim_case_buffer_named(c, "src0");
  const metalsim_case_buffer* x = metalsim_case_buffer_named(c, "src1");
  const metalsim_case_buffer* y = metalsim_case_buffer_named(c, "dst");
  if (a == NULL || x == NULL || y == NULL) return 1;
  const uint64_t rows = y->count, cols = x->count;
  if (a->count != rows * cols) return 2;
  for (uint64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (uint64_t j = 0; j < cols; ++j) sum += a->data[r * cols + j] * x->data[j];
    y->data[r] = sum;
  }
  return 0;
}
