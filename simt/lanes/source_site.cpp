#include "simt/lanes/source_site.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>

namespace metalsim::lanes {

using namespace llvm;

StringRef constant_c_string(const Value* v) {
  const auto* g = dyn_cast_or_null<GlobalVariable>(v ? v->stripPointerCasts() : nullptr);
  if (g == nullptr || !g->hasInitializer()) return "";
  const auto* data = dyn_cast<ConstantDataSequential>(g->getInitializer());
  return data != nullptr && data->isCString() ? data->getAsCString() : "";
}

std::string debug_site(const Instruction& inst) {
  const DebugLoc& loc = inst.getDebugLoc();
  if (!loc || loc.getLine() == 0) return "";
  const auto* scope = cast<DIScope>(loc.getScope());
  return scope->getFilename().str() + ":" + std::to_string(loc.getLine());
}

std::string source_location_site(const Value* site) {
  const auto* g = dyn_cast_or_null<GlobalVariable>(site ? site->stripPointerCasts() : nullptr);
  if (g == nullptr || !g->hasInitializer()) return "";
  // libstdc++: struct __impl { const char* _M_file_name; const char* _M_function_name;
  //                            unsigned _M_line; unsigned _M_column; };
  const auto* impl = dyn_cast<ConstantStruct>(g->getInitializer());
  if (impl == nullptr || impl->getNumOperands() != 4) return "";
  const std::string file = constant_c_string(impl->getOperand(0)).str();
  const auto* line = dyn_cast<ConstantInt>(impl->getOperand(2));
  if (file.empty() || line == nullptr) return "";
  return file + ":" + std::to_string(line->getZExtValue());
}

std::string describe_site(const Instruction& inst, const Value* site, const std::string& fallback) {
  std::string s = source_location_site(site);
  if (s.empty()) s = debug_site(inst);
  return s.empty() ? fallback : s;
}

}  // namespace metalsim::lanes
