#pragma once
// Where a report made inside metalsim's MSL headers was called from in the user's source. A
// header function the optimiser did not inline (or a collective's combine, which the runner
// calls for the whole simdgroup) faults on a header line: the kernel's own line is a caller's.
// The callers are read where the report is made, by libgcc's unwinder: on the kernel's stack in
// the access checks' slow path, through the signal frame in a fault handler. Only reports pay
// for it.
#include <source_location>
#include <vector>

#include "simt/report/report.h"

namespace metalsim::fault {

inline constexpr int kCallerDepth = 12;

struct CallerTrace {
  const void* returns[kCallerDepth] = {};  // return addresses, innermost first
  int count = 0;
  // The .metal call of the collective whose combine was running (`in_collective`). The combine
  // runs on the runner's stack, where no kernel frame lies above it. A copy: the call's request
  // is gone once the lane is abandoned.
  bool in_collective = false;
  std::source_location collective;
};

// The callers of the frame running at `pc` (an instruction the calling thread is in, or the
// return address into it: the frame the unwinder reports with exactly that address), innermost
// first; none when the unwinder does not meet `pc`. Safe enough for a signal handler once
// preload_unwinder() ran: it takes the loader's lock, like every unwinder.
void capture_callers(const void* pc, CallerTrace& out);
// Resolves and warms the unwinder outside any signal handler (its first use binds symbols).
void preload_unwinder();

// Names the user's line of a report made at `pc` (symbolize.h's name_user_site), the
// collective's call where the report was made in its combine.
void name_user_site(report::Report& r, const void* pc, const CallerTrace& callers);
// The same, left for the dispatch to symbolize when it ends (dispatch.cpp): r.site_trace is `pc`
// and each caller's call instruction, r.collective_call the collective's call.
void keep_user_trace(report::Report& r, const void* pc, const CallerTrace& callers);

// Marks the combine of a collective, for the reports made inside it (caller_trace.cpp).
class CollectiveScope {
 public:
  explicit CollectiveScope(const std::source_location& call);
  ~CollectiveScope();
  CollectiveScope(const CollectiveScope&) = delete;
  CollectiveScope& operator=(const CollectiveScope&) = delete;
  static const std::source_location* current();
  // A fault's jump out of a combine skips the scopes' destructors: the trap leaves them all
  // before it jumps (fault.cpp).
  static void leave_all();

 private:
  const std::source_location* outer_;
};

}  // namespace metalsim::fault
