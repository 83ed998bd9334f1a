#include "simt/lanes/inline_engine_calls.h"

#include <vector>

#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "simt/lanes/source_site.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

std::string callee_name(const Function& f) {
  // The demangled name would be friendlier, but the mangled one is exact and greppable in the
  // generated C++'s object file.
  return f.getName().str();
}

// The next call in `f` that must be inlined, or a failure, or neither (done).
struct Next {
  CallBase* call = nullptr;
  const Function* callee = nullptr;
  std::optional<Failure> failure;
};

Next find_next(Function& f, const EngineReach& reach, const TargetLibraryInfo& tli,
               const std::string& fallback) {
  for (Instruction& i : instructions(f)) {
    auto* call = dyn_cast<CallBase>(&i);
    if (call == nullptr || call->isInlineAsm() || isa<IntrinsicInst>(call)) continue;
    if (engine_call_of(*call) != EngineCall::None) continue;
    const auto* callee = dyn_cast<Function>(call->getCalledOperand()->stripPointerCasts());
    const std::string site = describe_site(*call, nullptr, fallback);
    if (callee == nullptr)
      return {nullptr, nullptr, Failure{site, "an indirect call may reach a sync point"}};
    if (!reach.reaches(callee)) continue;
    if (callee->isDeclaration()) {
      if (is_known_engine_free(*callee, tli)) continue;
      return {nullptr, nullptr,
              Failure{site, "calls " + callee_name(*callee) +
                                ", defined in another file: it may reach a sync point"}};
    }
    if (reach.recursive(callee))
      return {
          nullptr, nullptr,
          Failure{site, "a recursive call (" + callee_name(*callee) + ") reaches a sync point"}};
    return {call, callee, std::nullopt};
  }
  return {};
}

}  // namespace

std::optional<Failure> inline_engine_calls(Function& f, const EngineReach& reach,
                                           const TargetLibraryInfo& tli,
                                           const std::string& fallback_site) {
  for (;;) {
    Next next = find_next(f, reach, tli, fallback_site);
    if (next.failure) return next.failure;
    if (next.call == nullptr) return std::nullopt;
    const std::string site = describe_site(*next.call, nullptr, fallback_site);
    const std::string name = callee_name(*next.callee);
    InlineFunctionInfo info;
    InlineResult result = InlineFunction(*next.call, info);
    if (!result.isSuccess())
      return Failure{site, "cannot inline " + name + " (" + result.getFailureReason() +
                               "), which reaches a sync point"};
  }
}

void inline_kernel_calls(Function& f) {
  std::vector<CallBase*> calls;
  for (Instruction& i : instructions(f)) {
    auto* call = dyn_cast<CallBase>(&i);
    if (call == nullptr || call->isInlineAsm() || isa<IntrinsicInst>(call)) continue;
    if (engine_call_of(*call) != EngineCall::None) continue;
    const auto* callee = dyn_cast<Function>(call->getCalledOperand()->stripPointerCasts());
    if (callee == nullptr || callee->isDeclaration() || callee == &f ||
        callee->hasFnAttribute(Attribute::NoInline))
      continue;
    calls.push_back(call);
  }
  for (CallBase* call : calls) {
    InlineFunctionInfo info;
    (void)InlineFunction(*call, info);  // a call that cannot be inlined stays a call
  }
}

}  // namespace metalsim::lanes
