#include "simt/instrument/fast_variant.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "simt/instrument/private_bounds.h"

namespace metalsim::instrument {

using namespace llvm;

namespace {

// The lane-loop pass's registration call (simt/lanes/registration.cpp): (abi, body, step, ...).
constexpr const char* kLanesRegister = "__metalsim_lanes_register";
constexpr unsigned kLanesRegisterStep = 2;

StringRef c_string(const Value* v) {
  const auto* g = dyn_cast<GlobalVariable>(v->stripPointerCasts());
  if (g == nullptr || !g->hasInitializer()) return {};
  const auto* data = dyn_cast<ConstantDataSequential>(g->getInitializer());
  if (data == nullptr || !data->isCString()) return {};
  return data->getAsCString();
}

// Whether `f` is kernel code of this module that the access-check pass would instrument and
// that may be copied: not the engine, not a declaration, not ThreadSanitizer's (the tsan preset
// has no checked variant), and not a definition the linker may replace by another.
bool copyable(const Function& f) {
  return !f.isDeclaration() && !f.isIntrinsic() && !f.getName().starts_with("__metalsim_") &&
         !f.hasAvailableExternallyLinkage() && !f.isInterposable() &&
         !f.hasFnAttribute(Attribute::SanitizeThread);
}

// The entries the front marked, those that may be copied.
void add_entries(Module& m, SetVector<Function*>& roots) {
  for (Function* f : annotated_functions(m, kEntryAnnotation))
    if (copyable(*f)) roots.insert(f);
}

// The steps the lane-loop pass registered, those that may be copied.
void add_steps(Module& m, SetVector<Function*>& roots) {
  for (Function* step : lane_steps(m))
    if (copyable(*step)) roots.insert(step);
}

// The functions a constant names (a call's callee, a combine function passed to the engine).
void functions_in(const Value* v, SetVector<Function*>& out, unsigned depth = 0) {
  if (auto* f = dyn_cast<Function>(v)) {
    if (copyable(*f)) out.insert(const_cast<Function*>(f));
    return;
  }
  const auto* c = dyn_cast<ConstantExpr>(v);
  if (c == nullptr || depth > 4) return;
  for (const Use& op : c->operands()) functions_in(op.get(), out, depth + 1);
}

// Every function the roots reach, the roots first.
SetVector<Function*> reachable(const SetVector<Function*>& roots) {
  SetVector<Function*> seen = roots;
  for (size_t i = 0; i < seen.size(); ++i)
    for (Instruction& inst : instructions(*seen[i]))
      for (const Use& op : inst.operands()) functions_in(op.get(), seen);
  return seen;
}

Function* copy(Function& f) {
  ValueToValueMapTy map;
  Function* c = CloneFunction(&f, map);
  c->setName(f.getName() + ".metalsim.fast");
  c->setLinkage(GlobalValue::InternalLinkage);
  c->setComdat(nullptr);
  return c;
}

// A copy's calls go to the other copies (ConstantExprs that name a function are left: they
// reach the checked code, which computes the same).
void redirect(Function& c, const DenseMap<Function*, Function*>& copies) {
  for (Instruction& inst : instructions(c))
    for (Use& op : inst.operands())
      if (auto* f = dyn_cast<Function>(op.get()))
        if (auto it = copies.find(f); it != copies.end()) op.set(it->second);
}

void register_pairs(Module& m, const SetVector<Function*>& roots,
                    const DenseMap<Function*, Function*>& copies) {
  LLVMContext& ctx = m.getContext();
  auto* ptr = PointerType::get(ctx, 0);
  FunctionCallee reg = m.getOrInsertFunction(
      kFastRegister, FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr}, false));
  Function* ctor = Function::Create(FunctionType::get(Type::getVoidTy(ctx), false),
                                    GlobalValue::InternalLinkage, "metalsim.fast.register", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", ctor));
  for (Function* root : roots) b.CreateCall(reg, {root, copies.lookup(root)});
  b.CreateRetVoid();
  appendToGlobalCtors(m, ctor, 65535);
}

}  // namespace

// @llvm.global.annotations lists every annotated function with its annotation.
std::vector<Function*> annotated_functions(Module& m, StringRef annotation) {
  std::vector<Function*> out;
  const GlobalVariable* annotations = m.getNamedGlobal("llvm.global.annotations");
  if (annotations == nullptr || !annotations->hasInitializer()) return out;
  const auto* list = dyn_cast<ConstantArray>(annotations->getInitializer());
  if (list == nullptr) return out;
  for (const Use& entry : list->operands()) {
    const auto* e = dyn_cast<ConstantStruct>(entry.get());
    if (e == nullptr || e->getNumOperands() < 2) continue;
    auto* f = dyn_cast<Function>(e->getOperand(0)->stripPointerCasts());
    if (f != nullptr && c_string(e->getOperand(1)) == annotation) out.push_back(f);
  }
  return out;
}

std::vector<Function*> lane_steps(Module& m) {
  std::vector<Function*> out;
  const Function* reg = m.getFunction(kLanesRegister);
  if (reg == nullptr) return out;
  for (const User* u : reg->users()) {
    const auto* call = dyn_cast<CallBase>(u);
    if (call == nullptr || call->getCalledFunction() != reg ||
        call->arg_size() <= kLanesRegisterStep)
      continue;
    auto* step = dyn_cast<Function>(call->getArgOperand(kLanesRegisterStep)->stripPointerCasts());
    if (step != nullptr && !step->isDeclaration()) out.push_back(step);
  }
  return out;
}

SmallPtrSet<Function*, 32> make_fast_variants(Module& m) {
  SetVector<Function*> roots;
  add_entries(m, roots);
  add_steps(m, roots);
  SmallPtrSet<Function*, 32> made;
  if (roots.empty()) return made;
  DenseMap<Function*, Function*> copies;
  for (Function* f : reachable(roots)) copies[f] = copy(*f);
  for (auto& [f, c] : copies) {
    redirect(*c, copies);
    drop_private_checks(*c);  // the fast variant checks nothing
    made.insert(c);
  }
  register_pairs(m, roots, copies);
  return made;
}

}  // namespace metalsim::instrument
