#include "simt/lanes/registration.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

FunctionCallee register_function(Module& m) {
  LLVMContext& ctx = m.getContext();
  Type* ptr = PointerType::get(ctx, 0);
  Type* i32 = Type::getInt32Ty(ctx);
  auto* type =
      FunctionType::get(Type::getVoidTy(ctx), {i32, ptr, ptr, i32, ptr, ptr, i32, i32}, false);
  return m.getOrInsertFunction("__metalsim_lanes_register", type);
}

Constant* site_table(Module& m, const Registration& r) {
  if (r.threadgroup_variables.empty())
    return ConstantPointerNull::get(PointerType::get(m.getContext(), 0));
  std::vector<Constant*> sites(r.threadgroup_variables.begin(), r.threadgroup_variables.end());
  auto* type = ArrayType::get(PointerType::get(m.getContext(), 0), sites.size());
  return new GlobalVariable(m, type, true, GlobalValue::PrivateLinkage,
                            ConstantArray::get(type, sites), r.body->getName() + ".lanes.sites");
}

}  // namespace

void emit_registrations(Module& m, const std::vector<Registration>& registrations) {
  if (registrations.empty()) return;
  LLVMContext& ctx = m.getContext();
  auto* type = FunctionType::get(Type::getVoidTy(ctx), false);
  Function* ctor =
      Function::Create(type, GlobalValue::InternalLinkage, "metalsim.lanes.register", m);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", ctor));
  FunctionCallee reg = register_function(m);
  Type* ptr = b.getPtrTy();
  for (const Registration& r : registrations) {
    Value* step =
        r.step ? static_cast<Value*>(r.step) : ConstantPointerNull::get(cast<PointerType>(ptr));
    Value* why = r.why.empty()
                     ? static_cast<Value*>(ConstantPointerNull::get(cast<PointerType>(ptr)))
                     : b.CreateGlobalString(r.why, r.body->getName() + ".lanes.why");
    b.CreateCall(reg, {b.getInt32(abi::kAbiVersion), r.body, step,
                       b.getInt32(uint32_t(r.frame_bytes_per_lane)), why, site_table(m, r),
                       b.getInt32(uint32_t(r.threadgroup_variables.size())),
                       b.getInt32((r.assumes_distinct_buffers ? abi::kAssumesDistinctBuffers : 0) |
                                  (r.has_no_sync_points ? abi::kHasNoSyncPoints : 0))});
  }
  b.CreateRetVoid();
  appendToGlobalCtors(m, ctor, 65535);
}

}  // namespace metalsim::lanes
