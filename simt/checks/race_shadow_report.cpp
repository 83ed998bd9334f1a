// A conflict the shadow racecheck found (race_shadow.h), as a report: the later access's lane
// and line, the earlier access's lane, threadgroup and line, the memory and byte offset.
#include <string>

#include "simt/checks/race_shadow.h"
#include "simt/checks/running_threadgroup.h"
#include "simt/fault/caller_trace.h"

namespace metalsim::checks::race {
namespace {

std::string position(const Size3& p) {
  return "(" + std::to_string(p.x) + "," + std::to_string(p.y) + "," + std::to_string(p.z) + ")";
}

// "thread (3,0,0) of threadgroup (1,0,0)" for lane `lane` of run `run`.
std::string thread_of(const abi::DispatchGeometry& geometry, uint32_t run, uint32_t lane) {
  const Size3 tg = geometry.threadgroup_position(run - 1);
  const Size3 size = geometry.threadgroup_size_at(tg);
  const Size3 local{lane % size.x, lane / size.x % size.y, lane / (size.x * size.y)};
  return "thread " + position(local) + " of threadgroup " + position(tg);
}

std::string who(const abi::DispatchRequest& request, const Record& other, bool write) {
  const std::string one = thread_of(request.geometry, other.run, uint32_t(other.lane));
  if (write) return one + " (write)";
  if (other.many_runs) return "reads by threads of several threadgroups, among them " + one;
  if (other.many_lanes) return "reads by several threads, among them " + one;
  return one + " (read)";
}

}  // namespace

void WorkerShadow::report(RunningThreadgroup& running, const Access& a, const Record& other,
                          bool other_write, bool threadgroup) {
  const void* other_pc = reinterpret_cast<const void*>(uintptr_t(other.pc));
  if (!dispatch_->first_report(a.pc, other_pc)) return;
  const report::CheckId id =
      threadgroup ? report::CheckId::race_threadgroup : report::CheckId::race_device;
  report::Report r = running.lane_report(id, a.lane, nullptr);
  // Symbolized when the dispatch ends (dispatch.cpp), like every report with a trace. The
  // access's callers name the user's line of a race inside metalsim's headers; `a.pc` is the
  // access check's return address less one (access_check.cpp).
  fault::CallerTrace callers;
  fault::capture_callers(static_cast<const char*>(a.pc) + 1, callers);
  fault::keep_user_trace(r, a.pc, callers);
  r.other_trace = {other_pc};
  std::string region;
  uint64_t offset = 0;
  const char* origin = nullptr;
  if (threadgroup && running.describe_threadgroup_memory(a.address, region, offset)) {
    r.memory = region;
    r.has_offset = true;
    r.offset = int64_t(offset);
  } else if (!threadgroup && dispatch_->device_space(a.address, region, origin) != nullptr) {
    r.memory = region;
    r.has_offset = true;
    r.offset = int64_t(a.address - origin);
  }
  r.other_lanes = who(dispatch_->request(), other, other_write);
  const char* mine = a.write ? "write" : "read";
  const char* theirs = other_write ? "write" : "read";
  r.message =
      std::string(mine) + " conflicts with an earlier " + theirs + " by " +
      (other.run == a.run && !other.many_runs ? "another thread of the threadgroup"
                                              : "another threadgroup") +
      (threadgroup || other.run == a.run ? ", with no barrier between them"
                                         : ": threadgroups of one dispatch are not ordered");
  running.report(std::move(r));
}

// race.dispatch: the running member's access `a` against `other`, another member's.
void GroupShadow::report(RunningThreadgroup& running, DispatchShadow& dispatch, const Access& a,
                         const GroupRecord& other, bool other_write) {
  const void* other_pc = reinterpret_cast<const void*>(uintptr_t(other.pc));
  {
    std::lock_guard lock(reported_mutex_);
    if (reported_.size() >= 256 || !reported_.insert({a.pc, other_pc}).second) return;
  }
  const Member& me = members_[current_];
  const Member& them = members_[other.member - 1];
  report::Report r = running.lane_report(report::CheckId::race_dispatch, a.lane, nullptr);
  fault::CallerTrace callers;
  fault::capture_callers(static_cast<const char*>(a.pc) + 1, callers);
  fault::keep_user_trace(r, a.pc, callers);
  r.other_trace = {other_pc};
  std::string region;
  const char* origin = nullptr;
  if (dispatch.device_space(a.address, region, origin) != nullptr) {
    r.memory = region;
    r.has_offset = true;
    r.offset = int64_t(a.address - origin);
  }
  const std::string other_kernel = "kernel '" + them.kernel + "'";
  // Each named with its command buffer when the two are in different ones.
  const bool apart = me.context != them.context;
  const std::string my_label = me.label + (apart ? me.context : "");
  const std::string their_label = them.label + (apart ? them.context : "");
  r.other_lanes = thread_of(them.geometry, other.run, uint32_t(other.lane)) + " of " + their_label +
                  " (" + other_kernel + ", " + (other_write ? "write" : "read") + ")";
  r.message =
      std::string(a.write ? "write" : "read") + " by " + my_label + " conflicts with a " +
      (other_write ? "write" : "read") + " by " + their_label + " (" + other_kernel +
      "): the two may run at the same time on a GPU " +
      (other.member - 1 < order_.size() && order_[other.member - 1] == kOrderedUnlessUntracked
           ? "(untracked memory, and no event or host wait orders their command buffers)"
           : "(no barrier between them)");
  running.report(std::move(r));
}

}  // namespace metalsim::checks::race
