#include "simt/checks/initcheck.h"

#include <cstring>
#include <string>
#include <vector>

namespace metalsim::checks {
namespace {

constexpr uint8_t kFirstPoison = 0xA5;
constexpr uint8_t kSecondPoison = 0x5A;

// The bytes of every bound buffer range, to restore or compare.
using Snapshot = std::vector<std::vector<char>>;

Snapshot take(const abi::DispatchRequest& r) {
  Snapshot s;
  for (const abi::MemoryRange& m : r.memory) s.emplace_back(m.origin, m.end);
  return s;
}

void restore(const abi::DispatchRequest& r, const Snapshot& s) {
  for (size_t i = 0; i < r.memory.size(); ++i)
    std::memcpy(const_cast<char*>(r.memory[i].origin), s[i].data(), s[i].size());
}

// The first byte at which two snapshots differ, in words; empty when they are equal.
std::string first_difference(const abi::DispatchRequest& r, const Snapshot& a, const Snapshot& b) {
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t k = 0; k < a[i].size(); ++k)
      if (a[i][k] != b[i][k]) return r.memory[i].name + " byte " + std::to_string(k);
  return {};
}

}  // namespace

abi::DispatchOutcome run_with_initcheck(const abi::DispatchRequest& request,
                                        RunDispatchOnce run_once) {
  const Snapshot before = take(request);
  abi::DispatchRequest pass = request;
  pass.threadgroup_poison = kFirstPoison;
  abi::DispatchOutcome first = run_once(pass);
  if (!first.ok) return first;  // other findings come first; outputs stay as this run left them
  const Snapshot after_first = take(request);

  restore(request, before);
  pass.threadgroup_poison = kSecondPoison;
  abi::DispatchOutcome second = run_once(pass);
  // A rerun that did not complete (the watchdog stopped it at a campaign's deadline, or a fault
  // only this run met) left incomplete outputs: its outcome is the dispatch's, never "clean".
  if (!second.ok) return second;
  const Snapshot after_second = take(request);
  if (first_difference(request, after_first, after_second).empty())
    return first;  // buffers hold the second run's (identical) results

  // Confirm on one worker, where threadgroups run one after another in a fixed order: threads
  // of different threadgroups writing one element (a race, or atomics) make a parallel
  // dispatch differ from run to run whatever the poison, and prove nothing about it.
  pass.options.workers = 1;
  Snapshot serial[2];
  for (int k = 0; k < 2; ++k) {
    restore(request, before);
    pass.threadgroup_poison = k == 0 ? kFirstPoison : kSecondPoison;
    abi::DispatchOutcome confirmation = run_once(pass);
    if (!confirmation.ok) return confirmation;
    serial[k] = take(request);
  }
  const std::string where = first_difference(request, serial[0], serial[1]);
  if (where.empty()) return first;  // buffers hold a run's results, as without initcheck

  // Locate: the traced pass, one worker, leaves the buffers as the first run did.
  restore(request, before);
  pass.threadgroup_poison = kFirstPoison;
  pass.trace_uninit = true;
  abi::DispatchOutcome traced = run_once(pass);
  for (report::Report& r : traced.reports)
    if (r.check == report::CheckId::uninit_threadgroup)
      r.message += "; the value reaches device memory (" + where + " depends on it)";
  if (traced.reports.empty()) {
    report::Report r;
    r.check = report::CheckId::uninit_threadgroup;
    r.kernel = request.kernel->name;
    r.site = {request.kernel->source_file, request.kernel->source_line, request.kernel->name};
    r.message = "device memory depends on threadgroup memory no thread wrote (" + where +
                " differs with the poison pattern), but the traced rerun did not find the read";
    traced.reports.push_back(std::move(r));
  }
  traced.ok = false;
  return traced;
}

}  // namespace metalsim::checks
