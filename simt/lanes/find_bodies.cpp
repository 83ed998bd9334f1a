#include "simt/lanes/find_bodies.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include "simt/lanes/source_site.h"

namespace metalsim::lanes {

using namespace llvm;

std::vector<LaneBody> find_lane_bodies(Module& m) {
  std::vector<LaneBody> bodies;
  const GlobalVariable* annotations = m.getNamedGlobal("llvm.global.annotations");
  if (annotations == nullptr || !annotations->hasInitializer()) return bodies;
  const auto* list = dyn_cast<ConstantArray>(annotations->getInitializer());
  if (list == nullptr) return bodies;
  // Each entry: { ptr annotated, ptr annotation string, ptr file, i32 line, ptr args }.
  for (const Use& entry : list->operands()) {
    const auto* e = dyn_cast<ConstantStruct>(entry.get());
    if (e == nullptr || e->getNumOperands() < 4) continue;
    auto* f = dyn_cast<Function>(e->getOperand(0)->stripPointerCasts());
    if (f == nullptr || f->isDeclaration() ||
        constant_c_string(e->getOperand(1)) != kBodyAnnotation)
      continue;
    std::string at = constant_c_string(e->getOperand(2)).str();
    if (const auto* line = dyn_cast<ConstantInt>(e->getOperand(3)))
      at += ":" + std::to_string(line->getZExtValue());
    bodies.push_back({f, at});
  }
  return bodies;
}

}  // namespace metalsim::lanes
