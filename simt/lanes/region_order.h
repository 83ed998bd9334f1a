#pragma once
// Whether the rounds of a loop across lanes may reorder its region (docs/lanes.md, "Loops across
// lanes"). Fibers, and lane loops without the transform, run one lane's whole region (from a sync
// point to the next) before the next lane's. With the loop's yield, every lane's code up to the
// loop (and its first iteration) runs before any lane's second iteration, and a lane that skips
// the loop or leaves it early runs the code after it before the lanes that stay. Any two of the
// region's accesses by two lanes may then run in the other order. That is invisible unless one
// lane stores what another lane loads or stores: a race a kernel may have (a missing barrier),
// whose bytes lane loops must give as fibers do, or a log, whose lines must come in fibers'
// order.
#include <optional>
#include <string>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>

namespace metalsim::lanes {

// The loop's own strided index, for a loop that stores to shared or device memory: the accesses
// `uniform + scale * index + offset` of one array through it touch another lane's elements only
// where two lanes' indices meet, which a test at run time rules out (across_lanes.h: every lane's
// `{start, +, step}` values are distinct when start = u + slope * lane, the step exceeds slope *
// (lanes - 1) and the index cannot wrap before the latch's test leaves).
struct StridedIndex {
  const llvm::SCEVAddRecExpr* index = nullptr;  // {start, +, step} of the loop
  const llvm::SCEV* bound = nullptr;            // the latch test's bound
};

// What the rounds of a loop rely on when its region is free of races.
struct RegionOrder {
  // Device accesses through two different bindings are apart: the runtime runs a dispatch that
  // binds one buffer twice on fibers (execution_mode.cpp).
  bool assumes_distinct_buffers = false;
  // Nonzero: two lanes' accesses through the strided index are apart only if their indices never
  // meet; the index's start is `u + lane_slope * lane`, and the caller tests at run time that the
  // step exceeds lane_slope * (lanes - 1).
  uint64_t lane_slope = 0;
};

// Why the rounds of `loop` could show, or nullopt when they cannot: an access of the region(s)
// the loop lies in (every instruction reachable between the sync points before it and those after
// it, the loop's own included) may touch memory another lane's access there touches, one of them
// a store. A store to a space (memory_space.h) the region also reads or writes is such an access,
// unless each lane's accesses provably stay apart (the same address `base + c * lane`, |c| at
// least the access's size, base the same for every lane: `shared[tid]`; or, given `strided`, two
// accesses in the loop through its strided index whose footprints stay apart when the indices
// differ: `row[i]` read and written); so is a log or any other call that writes memory, a fence,
// a volatile access. Device accesses through two different buffer bindings are taken to be apart
// (a kernel reads its sizes from one buffer and writes another), which holds unless the host
// binds one buffer twice: `order` says what the answer assumes.
std::optional<std::string> region_order_visible(const llvm::Loop& loop, llvm::ScalarEvolution& se,
                                                const StridedIndex* strided, RegionOrder& order);

}  // namespace metalsim::lanes
