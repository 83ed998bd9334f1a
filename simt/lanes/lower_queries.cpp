#include "simt/lanes/lower_queries.h"

#include <algorithm>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include "simt/lanes/engine_calls.h"
#include "simt/lanes/source_site.h"
#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

Value* lower_function_constant(IRBuilder<>& b, Value* state, Value* index) {
  Type* ptr = b.getPtrTy();
  Value* count = abi::load_field(b, state, abi::kFunctionConstantCount, b.getInt64Ty(), "fc.count");
  Value* table = abi::load_field(b, state, abi::kFunctionConstants, ptr, "fc.table");
  Value* i = b.CreateZExt(index, b.getInt64Ty());
  // Branch-free: past the table, read the state's always-null entry instead.
  Value* in_table = b.CreateICmpULT(i, count, "fc.set");
  Value* entry = b.CreateSelect(in_table, b.CreateInBoundsGEP(ptr, table, i),
                                abi::field_address(b, state, abi::kUnsetConstant), "fc.entry");
  return b.CreateLoad(ptr, entry, "fc");
}

Value* lower_threadgroup_variable(IRBuilder<>& b, Value* state, uint32_t index) {
  Type* ptr = b.getPtrTy();
  Value* table = abi::load_field(b, state, abi::kThreadgroupVariables, ptr, "tgvars");
  return b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, table, index), "tgvar");
}

}  // namespace

std::optional<Failure> lower_queries(Function& f, std::vector<GlobalVariable*>& sites,
                                     const std::string& fallback_site) {
  Value* state = f.getArg(1);
  Value* lane = f.getArg(2);
  std::vector<CallInst*> queries;
  for (Instruction& i : instructions(f))
    if (auto* call = dyn_cast<CallInst>(&i)) {
      const EngineCall c = engine_call_of(*call);
      if (c != EngineCall::None && !is_sync_point(c)) queries.push_back(call);
    }
  for (CallInst* call : queries) {
    IRBuilder<> b(call);
    Value* value = nullptr;
    switch (engine_call_of(*call)) {
      case EngineCall::CurrentLaneIndex: value = lane; break;
      case EngineCall::CurrentSimdLane: value = b.CreateAnd(lane, 31, "simd_lane"); break;
      case EngineCall::FunctionConstant:
        value = lower_function_constant(b, state, call->getArgOperand(0));
        break;
      case EngineCall::ThreadgroupVariable: {
        auto* site = dyn_cast<GlobalVariable>(call->getArgOperand(0)->stripPointerCasts());
        if (site == nullptr)
          return Failure{describe_site(*call, nullptr, fallback_site),
                         "a threadgroup variable whose declaration site is not a constant"};
        auto at = std::find(sites.begin(), sites.end(), site);
        if (at == sites.end()) at = sites.insert(sites.end(), site);
        value = lower_threadgroup_variable(b, state, uint32_t(at - sites.begin()));
        break;
      }
      default: break;
    }
    call->replaceAllUsesWith(value);
    call->eraseFromParent();
  }
  return std::nullopt;
}

}  // namespace metalsim::lanes
