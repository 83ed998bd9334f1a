/* A reference for a case file, in a shared object of the user's (docs/cli.md, "Case files"):
 *
 *   "reference": {"library": "libmatmul_ref.so", "function": "matmul_ref"}
 *
 *   #include <metalsim/case_reference.h>
 *   extern "C" int matmul_ref(const metalsim_case* c) {
 *     const double* a = metalsim_case_buffer_named(c, "A")->data;
 *     double* out = metalsim_case_buffer_named(c, "C")->data;
 *     const int64_t m = metalsim_case_param(c, "M");
 *     ...
 *     return 0;
 *   }
 *
 * Every buffer of the case comes as doubles: an input holds what the kernel was given, an output
 * zeros for the reference to fill (an in-place buffer: its input). An input filled with GGML
 * blocks ({"blocks": "q4_0"}) holds the values the blocks hold (`count` of them), not its bytes.
 * The outputs are then compared with the kernel's within the case file's tolerance. Return 0;
 * anything else is an error of the reference, reported with the case. Plain C, so that a reference
 * needs no metalsim library. */
#ifndef METALSIM_CASE_REFERENCE_H
#define METALSIM_CASE_REFERENCE_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct metalsim_case_buffer {
  const char* name; /* the case file's name, else the kernel argument's */
  uint32_t index;   /* [[buffer(index)]] */
  int output;       /* non-zero: the reference writes it */
  uint64_t count;   /* elements */
  double* data;
} metalsim_case_buffer;

typedef struct metalsim_case_param_value {
  const char* name;
  int64_t value;
} metalsim_case_param_value;

typedef struct metalsim_case {
  const metalsim_case_buffer* buffers;
  uint32_t buffer_count;
  const metalsim_case_param_value* params;
  uint32_t param_count;
} metalsim_case;

typedef int (*metalsim_case_reference_fn)(const metalsim_case* c);

/* The buffer named `name`, or NULL. */
static inline const metalsim_case_buffer* metalsim_case_buffer_named(const metalsim_case* c,
                                                                     const char* name) {
  for (uint32_t i = 0; i < c->buffer_count; ++i)
    if (strcmp(c->buffers[i].name, name) == 0) return &c->buffers[i];
  return NULL;
}

/* The value of parameter `name`, or `fallback` when there is none. */
static inline int64_t metalsim_case_param_or(const metalsim_case* c, const char* name,
                                             int64_t fallback) {
  for (uint32_t i = 0; i < c->param_count; ++i)
    if (strcmp(c->params[i].name, name) == 0) return c->params[i].value;
  return fallback;
}
static inline int64_t metalsim_case_param(const metalsim_case* c, const char* name) {
  return metalsim_case_param_or(c, name, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* METALSIM_CASE_REFERENCE_H */
