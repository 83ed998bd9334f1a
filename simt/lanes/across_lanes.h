#pragma once
// Loops across lanes (issue 24 item 2; docs/lanes.md, "Loops across lanes"). A loop inside a
// region, `for (i = tid; i < n; i += threads)` or one whose trip count is the same for every lane,
// runs in a lane loop as an inner loop per lane, and the vectorizer, which vectorizes innermost
// loops, sees no loop across lanes. For such a loop the pass puts a *yield* on its back edge: a
// sync point of the pass's own, which splits the lane's run there and keeps what the next
// iteration needs in the lane's frame slots (the sync-point machinery: demotion, widening), and
// which the runtime resumes at once. The yield's continuation starts at the loop's header, and
// its region runs the loop's iterations with the lanes inside: first rounds that every lane runs
// (one lane loop per iteration, without the loop's exits), then each lane's remaining iterations
// in its own lane loop, as before.
//
// What this file does to the body before it is split: for each innermost loop that can take it
//   - counts the iterations done (`done`, 0 at the first) in a new header phi,
//   - computes, in the preheader, the index of the lane's last iteration (the least of its
//     exits' counts, ScalarEvolution's or from the exit's test; frozen so that it is stored,
//     never recomputed),
//   - recomputes each affine induction variable {start, +, step} from `done`
//     (start + done * step): in a round, `done` is the same for every lane, so addresses of the
//     form x[tid + done * threads] are consecutive across lanes,
//   - marks the header with metalsim.lanes.loop(last, done), which keeps `last` in a slot and
//     tells the emitter where `last` and `done` live,
//   - puts the yield on the back edge.
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

namespace metalsim::lanes {

struct AcrossLoop {
  llvm::CallInst* yield = nullptr;    // on the back edge; split into a sync point
  llvm::CallInst* marker = nullptr;   // metalsim.lanes.loop(last, done), in the header
  llvm::PHINode* done = nullptr;      // iterations done when the header starts
  llvm::Instruction* next = nullptr;  // done + 1, in the latch
  llvm::Instruction* last = nullptr;  // the last iteration's index, in the preheader
  llvm::BasicBlock* back = nullptr;   // latch -> back -> (the yield) -> header
  // Each exiting block of the loop, and the successor that stays in it.
  std::vector<std::pair<llvm::BasicBlock*, unsigned>> stays;
  // The loop's blocks (the yield's excepted): where the rounds read loop-invariant values.
  std::vector<llvm::BasicBlock*> blocks;
  // start + done * step of the recomputed induction variables: without wrap in the rounds.
  std::vector<llvm::Instruction*> wrap_free;
  std::string site;         // the loop's header, file:line
  unsigned recomputed = 0;  // induction variables recomputed from `done`
  // Its region is free of races only if no buffer is bound twice (region_order.h).
  bool assumes_distinct_buffers = false;
  // It stores to shared or device memory through its strided index: the back edge yields only
  // where a test in the preheader finds the lanes' indices apart (region_order.h, StridedIndex).
  bool tested_apart = false;
};

// Prepares every loop of `body` that can run across lanes (above). Needs the body inlined and
// its queries lowered; the yields are sync points for split_sync_points. `per_lane` gets each
// loop that would otherwise have been taken but whose region's order the rounds would show
// (region_order.h): "<file:line>: <why>".
std::vector<AcrossLoop> prepare_loops_across_lanes(llvm::Function& body,
                                                   std::vector<std::string>& per_lane);

// Whether `call` is a loop marker.
bool is_across_marker(const llvm::CallInst& call);

}  // namespace metalsim::lanes
