#include "host/cli/trace_writer.h"

#include <chrono>

namespace metalsim::cli {

uint64_t TraceWriter::now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

void TraceWriter::process_name(int pid, const std::string& name) {
  std::lock_guard lock(mutex_);
  events_.push_back({{"name", "process_name"},
                     {"ph", "M"},
                     {"pid", pid},
                     {"tid", 0},
                     {"args", {{"name", name}}}});
}

void TraceWriter::thread_name(int pid, int tid, const std::string& name) {
  std::lock_guard lock(mutex_);
  events_.push_back({{"name", "thread_name"},
                     {"ph", "M"},
                     {"pid", pid},
                     {"tid", tid},
                     {"args", {{"name", name}}}});
}

void TraceWriter::complete(const std::string& name, const std::string& category, int pid, int tid,
                           uint64_t begin_ns, uint64_t end_ns, nlohmann::json args) {
  const double ts = begin_ns >= origin_ns_ ? double(begin_ns - origin_ns_) / 1e3 : 0.0;
  const double dur = end_ns >= begin_ns ? double(end_ns - begin_ns) / 1e3 : 0.0;
  std::lock_guard lock(mutex_);
  events_.push_back({{"name", name},
                     {"cat", category},
                     {"ph", "X"},
                     {"pid", pid},
                     {"tid", tid},
                     {"ts", ts},
                     {"dur", dur},
                     {"args", std::move(args)}});
}

nlohmann::json TraceWriter::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

void TraceWriter::write(std::ostream& out) const { out << events().dump(1) << "\n"; }

}  // namespace metalsim::cli
