// Fuzzing the trellis specs over their own parameters: seeded random cases, half of each
// parameter's draws from its boundary values, sizes capped so the whole test stays under a
// second on two cores. `metalsim fuzz gemm_trellis_packed` does the same at any size,
// with shrinking.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/spec/case_runner.h"
#include "kernels/spec/inputs.h"

namespace metalsim::spec {
namespace {

// Largest value drawn per parameter (the specs allow more; the tests stay small).
int64_t cap(const std::string& name) {
  if (name == "M") return 160;
  if (name == "experts") return 8;
  if (name == "group_size") return 160;
  return 130;  // K, N, hidden, intermediate, n_levels, top_k, bits: clamped by their own range
}

Params draw(const KernelSpec& spec, InputGenerator& gen) {
  Params p;
  for (const ParamDef& d : spec.params()) {
    const int64_t hi = std::min(d.max, cap(d.name));
    if (!d.choices.empty())
      p[d.name] = d.choices[size_t(gen.integer(0, int64_t(d.choices.size()) - 1))];
    else if (!d.boundaries.empty() && gen.integer(0, 1) == 0)
      p[d.name] =
          std::min(hi, d.boundaries[size_t(gen.integer(0, int64_t(d.boundaries.size()) - 1))]);
    else p[d.name] = gen.integer(d.min, hi);
  }
  return p;
}

TEST(TrellisFuzz, RandomCasesOfEverySpecMatchTheReference) {
  metalsim::ExecutionOptions options;
  options.checks = metalsim::CheckSet::all();
  options.checks.race = false;
  for (const char* name :
       {"gemm_trellis_packed", "gemm_trellis_packed_decode", "gemm_trellis_moe"}) {
    const KernelSpec* spec = SpecRegistry::find(name);
    ASSERT_NE(spec, nullptr) << name;
    InputGenerator gen(2024);
    int ran = 0;
    for (int attempt = 0; attempt < 200 && ran < 4; ++attempt) {
      const Params p = draw(*spec, gen);
      if (!spec->valid(p, nullptr)) continue;
      const Case c{spec, spec->complete(p), gen.next_u64()};
      const CaseOutcome out = CaseRunner::shared().run(c, options);
      EXPECT_TRUE(verdict_ok(out.verdict()))
          << c.id() << " seed " << c.seed << ": " << out.result.failure;
      ++ran;
    }
    EXPECT_EQ(ran, 4) << name;
  }
}

}  // namespace
}  // namespace metalsim::spec
