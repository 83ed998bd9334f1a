#pragma once
// One prepared case of a case file (spec::PreparedCase): its buffers made from their fills,
// outputs poisoned, the kernel dispatched with the case's grid, threadgroup size, bytes and
// threadgroup memory; then the reference (another kernel of the file, or a C function) compared
// within the tolerance, or, with no reference, the oracles that need none (case_file_spec.h).
#include <memory>

#include "host/cli/case_file_spec.h"
#include "kernels/spec/case_context.h"

namespace metalsim::cli {

std::unique_ptr<spec::PreparedCase> prepare_case_file_run(const CaseFileSpec& spec,
                                                          const spec::Params& p,
                                                          spec::CaseContext& ctx);

}  // namespace metalsim::cli
