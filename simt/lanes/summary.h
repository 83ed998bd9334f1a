#pragma once
// A plain-text account of what the pass did to each lane body, for tests and for reading:
// written when clang runs with `-mllvm -metalsim-lanes-summary=<file>` (appended to).
//
//   body <demangled name> declared at <file:line>
//     not transformed: <why>
//   or
//     step <name>: <b> frame bytes per lane, <d> values demoted
//     sync <k> <kind> at <file:line>
//     across lanes: loop at <file:line>, yield <k>, <n> induction variables recomputed
//     per lane: loop at <file:line>: <why the rounds would show in its region>
//     slot <name>: <size> bytes at offset <offset>[, element-major (<e>-byte elements)]
//     region <k>: <n> blocks -> sync 2, sync 3, return
#include <cstdint>
#include <string>
#include <vector>

#include "simt/lanes/loop_emitter.h"

namespace metalsim::lanes {

struct BodySummary {
  std::string body;  // demangled
  std::string declared_at;
  std::string why;  // empty: transformed
  std::string step;
  uint64_t frame_bytes = 0;
  unsigned demoted = 0;
  std::vector<std::string> lines;  // sync points, slots, regions
};

// The sync points, slots and regions of a prepared body, before its blocks move into the step.
void describe_prepared(const PreparedBody& prepared, BodySummary& summary);
std::string format_summary(const std::vector<BodySummary>& bodies);

}  // namespace metalsim::lanes
