#pragma once
// The few standard passes the pass runs on what it builds: on the body once its sync paths are
// inlined (to promote what the inlined callees left in memory), and on the step before the
// pipeline's loop vectorizer sees it (to forward the demoted values' stores to their loads in
// the same region, and to hoist loads of the arguments and the state out of the lane loops).
#include <llvm/IR/Function.h>
#include <llvm/IR/PassManager.h>

namespace metalsim::lanes {

void clean_up_inlined_body(llvm::Function& f, llvm::FunctionAnalysisManager& fam);
void clean_up_step(llvm::Function& f, llvm::FunctionAnalysisManager& fam);

}  // namespace metalsim::lanes
