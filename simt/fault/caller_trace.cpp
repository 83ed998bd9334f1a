#include "simt/fault/caller_trace.h"

#include <unwind.h>

#include <cstdint>

#include "simt/report/symbolize.h"
#include "simt/report/sync_site.h"

namespace metalsim::fault {
namespace {

thread_local const std::source_location* tls_collective = nullptr;

// Frames met before `pc` (the unwinder's own, a check's, a signal handler's) are at most this many.
constexpr int kFramesBeforePc = 32;

struct Walk {
  uintptr_t pc;
  CallerTrace* out;
  int before = 0;  // frames skipped so far
  bool met = false;
};

_Unwind_Reason_Code step(_Unwind_Context* context, void* arg) {
  auto& walk = *static_cast<Walk*>(arg);
  int before_instruction = 0;
  const uintptr_t ip = _Unwind_GetIPInfo(context, &before_instruction);
  if (ip == 0) return _URC_END_OF_STACK;
  if (!walk.met) {
    walk.met = ip == walk.pc;
    return ++walk.before < kFramesBeforePc || walk.met ? _URC_NO_REASON : _URC_END_OF_STACK;
  }
  CallerTrace& out = *walk.out;
  out.returns[out.count++] = reinterpret_cast<const void*>(ip);
  return out.count < kCallerDepth ? _URC_NO_REASON : _URC_END_OF_STACK;
}

}  // namespace

void capture_callers(const void* pc, CallerTrace& out) {
  out.count = 0;
  out.in_collective = tls_collective != nullptr;
  if (out.in_collective) out.collective = *tls_collective;
  Walk walk{reinterpret_cast<uintptr_t>(pc), &out};
  _Unwind_Backtrace(&step, &walk);
}

void preload_unwinder() {
  CallerTrace ignored;
  capture_callers(nullptr, ignored);
}

namespace {

// `pc`, then each caller's call instruction (a return address less one).
std::vector<const void*> user_trace(const void* pc, const CallerTrace& callers) {
  std::vector<const void*> trace{pc};
  for (int i = 0; i < callers.count; ++i)
    trace.push_back(static_cast<const char*>(callers.returns[i]) - 1);
  return trace;
}

}  // namespace

void keep_user_trace(report::Report& r, const void* pc, const CallerTrace& callers) {
  r.site_trace = user_trace(pc, callers);
  if (callers.in_collective) r.collective_call = report::to_site(callers.collective);
}

void name_user_site(report::Report& r, const void* pc, const CallerTrace& callers) {
  if (callers.in_collective) r.collective_call = report::to_site(callers.collective);
  name_user_site(r, user_trace(pc, callers));
}

CollectiveScope::CollectiveScope(const std::source_location& call) : outer_(tls_collective) {
  tls_collective = &call;
}
CollectiveScope::~CollectiveScope() { tls_collective = outer_; }
const std::source_location* CollectiveScope::current() { return tls_collective; }
void CollectiveScope::leave_all() { tls_collective = nullptr; }

}  // namespace metalsim::fault
