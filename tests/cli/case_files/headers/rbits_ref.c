/* The reference of rbits.metal, in plain C against <metalsim/case_reference.h> alone: built by
 * metalsim_add_case_reference (tests/cli/CMakeLists.txt, tests/package) and by the one-line
 * compile of docs/cli.md. The uint buffers arrive as doubles, each element converted exactly. */
#include <metalsim/case_reference.h>

static uint32_t reverse32(uint32_t x) {
  uint32_t r = 0;
  for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
  return r;
}

static uint32_t ones(uint32_t x) {
  uint32_t n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
}

int rbits_ref(const metalsim_case* c) {
  const metalsim_case_buffer* in = metalsim_case_buffer_named(c, "in");
  const metalsim_case_buffer* out = metalsim_case_buffer_named(c, "out");
  const metalsim_case_buffer* odd = metalsim_case_buffer_named(c, "odd");
  if (in == NULL || out == NULL || odd == NULL) return 1;
  double odd_count = 0;
  for (uint64_t i = 0; i < in->count; ++i) {
    const uint32_t x = (uint32_t)in->data[i];
    out->data[i] = (double)(reverse32(x) ^ ones(x));
    odd_count += (double)(x & 1u);
  }
  odd->data[0] = odd_count;
  return 0;
}
