#include "simt/engine/initcheck.h"

#include <cstring>
#include <string>
#include <vector>

namespace metalsim::engine {
namespace {

constexpr uint8_t kFirstPoison = 0xA5;
constexpr uint8_t kSecondPoison = 0x5A;

// The bytes of every bound buffer range, to restore or compare.
using Snapshot = std::vector<std::vector<char>>;

Snapshot take(const DispatchRequest& r) {
  Snapshot s;
  for (const MemoryRange& m : r.memory) s.emplace_back(m.origin, m.end);
  return s;
}

void restore(const DispatchRequest& r, const Snapshot& s) {
  for (size_t i = 0; i < r.memory.size(); ++i)
    std::memcpy(const_cast<char*>(r.memory[i].origin), s[i].data(), s[i].size());
}

// The first byte at which two snapshots differ, in words; empty when they are equal.
std::string first_difference(const DispatchRequest& r, const Snapshot& a, const Snapshot& b) {
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t k = 0; k < a[i].size(); ++k)
      if (a[i][k] != b[i][k]) return r.memory[i].name + " byte " + std::to_string(k);
  return {};
}

}  // namespace

DispatchOutcome run_with_initcheck(const DispatchRequest& request) {
  const Snapshot before = take(request);
  DispatchRequest pass = request;
  pass.threadgroup_poison = kFirstPoison;
  DispatchOutcome first = run_dispatch_once(pass);
  if (!first.ok) return first;  // other findings come first; outputs stay as this run left them
  const Snapshot after_first = take(request);

  restore(request, before);
  pass.threadgroup_poison = kSecondPoison;
  run_dispatch_once(pass);
  const Snapshot after_second = take(request);
  const std::string where = first_difference(request, after_first, after_second);
  if (where.empty()) return first;  // buffers hold the second run's (identical) results

  // Same poison again: if even that differs, the dispatch is not deterministic (atomics in
  // parallel, a race) and the comparison proves nothing about uninitialised memory.
  restore(request, before);
  pass.threadgroup_poison = kFirstPoison;
  run_dispatch_once(pass);
  if (!first_difference(request, after_first, take(request)).empty()) return first;

  // Locate: the traced pass, one worker, leaves the buffers as the first run did.
  restore(request, before);
  pass.trace_uninit = true;
  pass.options.workers = 1;
  DispatchOutcome traced = run_dispatch_once(pass);
  for (check::Report& r : traced.reports)
    if (r.check == check::CheckId::uninit_threadgroup)
      r.message += "; the value reaches device memory (" + where + " depends on it)";
  if (traced.reports.empty()) {
    check::Report r;
    r.check = check::CheckId::uninit_threadgroup;
    r.kernel = request.kernel->name;
    r.site = {request.kernel->source_file, request.kernel->source_line, request.kernel->name};
    r.message = "device memory depends on threadgroup memory no thread wrote (" + where +
                " differs with the poison pattern), but the traced rerun did not find the read";
    traced.reports.push_back(std::move(r));
  }
  traced.ok = false;
  return traced;
}

}  // namespace metalsim::engine
