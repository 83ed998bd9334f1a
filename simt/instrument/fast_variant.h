#pragma once
// The fast variant of every kernel (docs/architecture.md, "Two variants of every kernel"). Before
// the access-check pass instruments a module, each kernel entry (the fibers' code, which the front
// marks [[clang::annotate("metalsim.kernel.entry")]]) and each lane-loop step (what the lane-loop
// pass registered) is cloned, with every function of the module it reaches, into a copy the pass
// then leaves alone; a global constructor registers each pair with the engine
//   __metalsim_fast_variant_register(checked, fast)
// which runs the copy for a dispatch with mem, race and init off. The copies are made from the
// optimised IR at the end of the pipeline, so both variants are the same code but for the checks,
// and only the code generator's work doubles, not the front end's or the optimizer's.
#include <vector>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace metalsim::instrument {

inline constexpr const char* kEntryAnnotation = "metalsim.kernel.entry";
inline constexpr const char* kFastRegister = "__metalsim_fast_variant_register";

// The functions of `m` marked [[clang::annotate(annotation)]].
std::vector<llvm::Function*> annotated_functions(llvm::Module& m, llvm::StringRef annotation);

// The lane-loop steps the lane-loop pass registered in `m` (its pass runs earlier in the
// pipeline): the third argument of each __metalsim_lanes_register call.
std::vector<llvm::Function*> lane_steps(llvm::Module& m);

// Makes and registers the fast variants of `m`; returns the functions they are made of (which
// the access-check pass must not instrument).
llvm::SmallPtrSet<llvm::Function*, 32> make_fast_variants(llvm::Module& m);

}  // namespace metalsim::instrument
