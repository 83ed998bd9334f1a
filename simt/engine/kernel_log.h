#pragma once
// Logging from kernels (MSL's os_log and printf, <metal_logging>; docs/logging.md). A kernel's
// log call formats its message on the lane and hands it here with the lane's index; the line is
// kept with the kernel's name, the threadgroup and the thread position, and the dispatch returns
// its lines sorted by threadgroup, then in the order each threadgroup's lanes logged them. Lines
// of one lane keep their order; under the in-order schedule the whole log is the same from run
// to run and for every worker count (each threadgroup runs on one worker, in lane order).
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "simt/base/size3.h"
#include "simt/report/log_line.h"

namespace metalsim::abi {
struct DispatchRequest;  // simt/abi/dispatch_request.h
}

namespace metalsim::engine {

// The lines of one dispatch, from every worker.
class KernelLog {
 public:
  void add(report::LogLine line);
  // Sorted by threadgroup, then by order (see above); the log is empty afterwards.
  std::vector<report::LogLine> take();

 private:
  std::mutex mutex_;
  std::vector<report::LogLine> lines_;
};

// Set by the worker around each threadgroup it runs: where that threadgroup's lines go.
// `position`, `size`: the threadgroup's position in the grid and its actual size.
class LoggingThreadgroup {
 public:
  LoggingThreadgroup(KernelLog& log, const abi::DispatchRequest& request,
                     uint64_t linear_threadgroup, Size3 position, Size3 size);
  ~LoggingThreadgroup();
  LoggingThreadgroup(const LoggingThreadgroup&) = delete;
  LoggingThreadgroup& operator=(const LoggingThreadgroup&) = delete;
};

// The kernel side (simt/include/metal_logging): a line from lane `lane` of the threadgroup the
// calling worker runs. Outside a kernel, printed to stderr.
void log_message(uint32_t lane, report::LogLevel level, const char* subsystem, const char* category,
                 const char* message);

}  // namespace metalsim::engine
