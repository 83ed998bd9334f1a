#pragma once
// The lane bodies of a module: functions marked [[clang::annotate("metalsim.lanes.body")]],
// which clang lists in @llvm.global.annotations (every template instance included).
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

namespace metalsim::lanes {

inline constexpr const char* kBodyAnnotation = "metalsim.lanes.body";
// One per buffer argument in MSL's constant address space, with its binding: memory no lane
// writes during a dispatch (memory_space.h). find_lane_bodies records them on the body as the
// function attribute kConstantBuffersAttribute.
inline constexpr const char* kConstantBufferAnnotation = "metalsim.lanes.constant_buffer";
inline constexpr const char* kConstantBuffersAttribute = "metalsim-constant-buffers";

struct LaneBody {
  llvm::Function* function;
  std::string declared_at;  // "file:line" of the annotated declaration
};

std::vector<LaneBody> find_lane_bodies(llvm::Module& m);

}  // namespace metalsim::lanes
