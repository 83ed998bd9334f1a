#pragma once
// Chrome/Perfetto trace events (the JSON array form): complete events ("ph":"X") with
// microsecond timestamps, and metadata naming processes and threads. Open the file in
// ui.perfetto.dev or chrome://tracing. Safe to call from several workers at once.
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace metalsim::cli {

class TraceWriter {
 public:
  // Timestamps are steady_clock nanoseconds; the trace starts at the writer's creation.
  static uint64_t now_ns();

  void process_name(int pid, const std::string& name);
  void thread_name(int pid, int tid, const std::string& name);
  void complete(const std::string& name, const std::string& category, int pid, int tid,
                uint64_t begin_ns, uint64_t end_ns, nlohmann::json args = nlohmann::json::object());
  nlohmann::json events() const;
  void write(std::ostream& out) const;

 private:
  uint64_t origin_ns_ = now_ns();
  mutable std::mutex mutex_;
  nlohmann::json events_ = nlohmann::json::array();
};

}  // namespace metalsim::cli
