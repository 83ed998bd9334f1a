// A reference for matmul.json in a shared object of its own, as a user would write one: C = A * B
// in double (metalsim/case_reference.h gives every buffer as doubles).
#include <metalsim/case_reference.h>

extern "C" int matmul_ref(const metalsim_case* c) {
  const metalsim_case_buffer* a = metalsim_case_buffer_named(c, "A");
  const metalsim_case_buffer* b = metalsim_case_buffer_named(c, "B");
  const metalsim_case_buffer* out = metalsim_case_buffer_named(c, "C");
  if (a == nullptr || b == nullptr || out == nullptr) return 1;
  const int64_t m = metalsim_case_param(c, "M"), n = metalsim_case_param(c, "N"),
                k = metalsim_case_param(c, "K");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t x = 0; x < k; ++x) sum += a->data[i * k + x] * b->data[x * n + j];
      out->data[i * n + j] = sum;
    }
  return 0;
}
