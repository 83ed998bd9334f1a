#pragma once
// Inlining: every call in a lane body that may reach an engine call (a sync point or a query)
// is inlined, transitively, so that each sync point becomes a call in the body itself, where the
// pass can split it, and each query a call it can replace.
#include <optional>
#include <string>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Function.h>

#include "simt/lanes/engine_calls.h"
#include "simt/lanes/failure.h"

namespace metalsim::lanes {

// Returns why not when a call that may reach the engine cannot be inlined: an indirect call, a
// recursive one, or one to a function defined in another file. `fallback_site` names the body.
std::optional<Failure> inline_engine_calls(llvm::Function& f, const EngineReach& reach,
                                           const llvm::TargetLibraryInfo& tli,
                                           const std::string& fallback_site);

// Inlines the direct calls of the body `f` to functions defined in this file (the kernel function
// the front's body calls, and any helper it calls directly), whether or not they reach the engine:
// a lane loop around a call is not vectorized, and the inliner's size heuristics leave long
// kernels (gelu with its tanh written out) as calls. Recursive callees and calls that cannot be
// inlined stay calls.
void inline_kernel_calls(llvm::Function& f);

}  // namespace metalsim::lanes
