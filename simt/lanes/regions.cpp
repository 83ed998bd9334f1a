#include "simt/lanes/regions.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Instructions.h>

namespace metalsim::lanes {

using namespace llvm;

namespace {

Region region_from(uint32_t cont, BasicBlock* start, Function& f,
                   const DenseMap<const BasicBlock*, uint32_t>& sync_of) {
  Region r{cont, start, {}, {}, false};
  SmallPtrSet<BasicBlock*, 32> in;
  SmallVector<BasicBlock*, 64> work{start};
  in.insert(start);
  while (!work.empty()) {
    BasicBlock* b = work.pop_back_val();
    if (auto at = sync_of.find(b); at != sync_of.end()) {
      r.exits.push_back(at->second);
      continue;  // the lane stops here; what follows is another continuation
    }
    if (isa<ReturnInst>(b->getTerminator())) r.returns = true;
    for (BasicBlock* s : successors(b))
      if (in.insert(s).second) work.push_back(s);
  }
  r.blocks.push_back(start);
  for (BasicBlock& b : f)
    if (&b != start && in.contains(&b)) r.blocks.push_back(&b);
  for (const BasicBlock* b : r.blocks) r.instructions += unsigned(b->size());
  llvm::sort(r.exits);
  return r;
}

}  // namespace

std::vector<Region> compute_regions(Function& f, const std::vector<SyncPoint>& syncs) {
  DenseMap<const BasicBlock*, uint32_t> sync_of;
  for (const SyncPoint& s : syncs) sync_of[s.block] = s.id;
  std::vector<Region> regions;
  regions.push_back(region_from(0, &f.getEntryBlock(), f, sync_of));
  for (const SyncPoint& s : syncs) regions.push_back(region_from(s.id, s.resume, f, sync_of));
  return regions;
}

}  // namespace metalsim::lanes
