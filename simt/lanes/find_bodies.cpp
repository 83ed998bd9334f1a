#include "simt/lanes/find_bodies.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include <optional>
#include <string>

#include "simt/lanes/source_site.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

// The binding of a "metalsim.lanes.constant_buffer" annotation: its one argument, an int.
std::optional<uint64_t> annotated_binding(const Constant* args) {
  const auto* global = dyn_cast<GlobalVariable>(args->stripPointerCasts());
  if (global == nullptr || !global->hasInitializer()) return std::nullopt;
  const auto* fields = dyn_cast<ConstantStruct>(global->getInitializer());
  const auto* binding = fields != nullptr && fields->getNumOperands() == 1
                            ? dyn_cast<ConstantInt>(fields->getOperand(0))
                            : nullptr;
  if (binding == nullptr || binding->isNegative() || binding->getZExtValue() >= 64)
    return std::nullopt;
  return binding->getZExtValue();
}

// Records a body's constant-memory bindings as its attribute kConstantBuffersAttribute: a
// decimal bit mask.
void add_constant_buffer(Function& f, uint64_t binding) {
  uint64_t mask = 0;
  if (f.hasFnAttribute(kConstantBuffersAttribute))
    f.getFnAttribute(kConstantBuffersAttribute).getValueAsString().getAsInteger(10, mask);
  mask |= uint64_t(1) << binding;
  f.addFnAttr(kConstantBuffersAttribute, std::to_string(mask));
}

}  // namespace

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
    if (f == nullptr || f->isDeclaration()) continue;
    const StringRef annotation = constant_c_string(e->getOperand(1));
    if (annotation == kConstantBufferAnnotation && e->getNumOperands() >= 5) {
      if (std::optional<uint64_t> binding = annotated_binding(e->getOperand(4)))
        add_constant_buffer(*f, *binding);
      continue;
    }
    if (annotation != kBodyAnnotation) continue;
    std::string at = constant_c_string(e->getOperand(2)).str();
    if (const auto* line = dyn_cast<ConstantInt>(e->getOperand(3)))
      at += ":" + std::to_string(line->getZExtValue());
    bodies.push_back({f, at});
  }
  return bodies;
}

}  // namespace metalsim::lanes
