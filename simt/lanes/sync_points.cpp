#include "simt/lanes/sync_points.h"

#include <llvm/IR/InstIterator.h>

#include "simt/lanes/source_site.h"

namespace metalsim::lanes {

using namespace llvm;

Value* site_argument(const CallInst& call) { return call.getArgOperand(call.arg_size() - 1); }

std::vector<SyncPoint> split_sync_points(Function& f) {
  std::vector<CallInst*> calls;
  for (Instruction& i : instructions(f))
    if (auto* call = dyn_cast<CallInst>(&i); call && is_sync_point(engine_call_of(*call)))
      calls.push_back(call);
  std::vector<SyncPoint> points;
  for (CallInst* call : calls) {
    const uint32_t id = uint32_t(points.size() + 1);
    BasicBlock* block = call->getParent()->splitBasicBlock(call, "sync." + Twine(id));
    BasicBlock* resume = block->splitBasicBlock(call->getNextNode(), "resume." + Twine(id));
    points.push_back({id, engine_call_of(*call), call, block, resume,
                      describe_site(*call, site_argument(*call), "")});
  }
  return points;
}

}  // namespace metalsim::lanes
