#pragma once
// What the family's own tests need beyond the KernelSpec interface: run one case of an
// attention spec and keep the kernel's output next to the reference's.
#include <string>
#include <vector>

#include "kernels/spec/spec.h"

namespace metalsim::kernels::attention {

struct AttentionRun {
  spec::CaseResult result;  // as the case runner reports it (tolerance, checks, timings)
  std::vector<double> got;  // the kernel's O (half, widened), in the O view's layout
  std::vector<double> ref;  // the reference's O
  int64_t row_stride = 0;   // elements between query rows of O (head 0, batch 0)
};

// Runs the case `p` (completed with defaults) of attention spec `name` ("decode_attention",
// ...). Throws std::invalid_argument for an unknown spec or an invalid case.
AttentionRun run_attention(const std::string& name, const spec::Params& p,
                           const metalsim::ExecutionOptions& options, uint64_t seed = 1);

}  // namespace metalsim::kernels::attention
