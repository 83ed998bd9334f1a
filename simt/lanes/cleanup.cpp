#include "simt/lanes/cleanup.h"

#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimpleLoopUnswitch.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

namespace metalsim::lanes {

using namespace llvm;

void clean_up_inlined_body(Function& f, FunctionAnalysisManager& fam) {
  FunctionPassManager fpm;
  fpm.addPass(SROAPass(SROAOptions::ModifyCFG));
  fpm.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
  fpm.addPass(InstCombinePass());
  fpm.addPass(SimplifyCFGPass());
  fpm.run(f, fam);
}

void clean_up_step(Function& f, FunctionAnalysisManager& fam) {
  FunctionPassManager fpm;
  fpm.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
  fpm.addPass(InstCombinePass());
  fpm.addPass(SimplifyCFGPass());
  fpm.addPass(GVNPass());
  fpm.addPass(createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()), /*UseMemorySSA=*/true));
  // A branch on a value every lane shares (a row's max in softmax's last loop) around a load the
  // vectorizer cannot mask (a half): one copy of the lane loop per side.
  fpm.addPass(createFunctionToLoopPassAdaptor(SimpleLoopUnswitchPass(/*NonTrivial=*/true),
                                              /*UseMemorySSA=*/true));
  fpm.addPass(InstCombinePass());
  fpm.addPass(SimplifyCFGPass());
  fpm.run(f, fam);
}

}  // namespace metalsim::lanes
