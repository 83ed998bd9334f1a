#pragma once
// The trellis family's prepared cases, made from a problem: the specs (trellis_spec.cpp) make the
// problem from their parameters and seed; the trellis tests also pass problems of their own
// (corrupted scales, signs or grids, NaN activations), which no parameter names, and run them
// through CaseRunner::execute. Each case dispatches as the layers do (TrellisLinear.encode,
// TrellisMoE.encode) on a command buffer of the context, outputs poisoned first, and compares with
// trellis_ref.cpp under its per-element bounds.
#include <memory>

#include "kernels/spec/case_context.h"
#include "kernels/trellis/trellis_linear.h"
#include "kernels/trellis/trellis_problem.h"

namespace metalsim::kernels::trellis {

// C = A x W through TrellisLinear with `kernel` (automatic: the one forward() picks for M).
// Output "C".
std::unique_ptr<spec::PreparedCase> prepare_gemm_case(std::shared_ptr<const GemmProblem> problem,
                                                      TrellisKernel kernel, spec::CaseContext& ctx);
// The MoE layer through TrellisMoE; h (the SwiGLU scratch between its two dispatches) is poisoned
// too, so a row the down kernel reads that the gate/up kernel never wrote shows as NaN. Output
// "out".
std::unique_ptr<spec::PreparedCase> prepare_moe_case(std::shared_ptr<const MoeProblem> problem,
                                                     spec::CaseContext& ctx);

}  // namespace metalsim::kernels::trellis
