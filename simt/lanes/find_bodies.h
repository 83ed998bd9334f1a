#pragma once
// The lane bodies of a module: functions marked [[clang::annotate("metalsim.lanes.body")]],
// which clang lists in @llvm.global.annotations (every template instance included).
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace metalsim::lanes {

inline constexpr const char* kBodyAnnotation = "metalsim.lanes.body";

struct LaneBody {
  llvm::Function* function;
  std::string declared_at;  // "file:line" of the annotated declaration
};

std::vector<LaneBody> find_lane_bodies(llvm::Module& m);

}  // namespace metalsim::lanes
