#include "kernels/spec/baseline.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace metalsim::spec::baseline {

void widen(const half_t* in, float* out, size_t n) {
  size_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
#endif
  for (; i < n; ++i) out[i] = float(in[i]);
}

void narrow(const float* in, half_t* out, size_t n) {
  size_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i) out[i] = half_t(in[i]);
}

}  // namespace metalsim::spec::baseline
