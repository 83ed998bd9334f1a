#pragma once
// One line a kernel logged (<metal_logging>; simt/engine/kernel_log.h collects them): a value
// type of the report layer, so the host API can hand lines out without an engine header.
#include <cstdint>
#include <string>

#include "simt/base/size3.h"

namespace metalsim::report {

// MTLLogLevel's values.
enum class LogLevel : uint8_t {
  undefined = 0,
  debug = 1,
  info = 2,
  notice = 3,
  error = 4,
  fault = 5
};

struct LogLine {
  std::string kernel;
  Size3 threadgroup{0, 0, 0};  // threadgroup_position_in_grid
  Size3 thread{0, 0, 0};       // thread_position_in_threadgroup
  uint64_t linear_threadgroup = 0;
  uint64_t order = 0;  // within its threadgroup
  LogLevel level = LogLevel::undefined;
  std::string subsystem, category;
  std::string message;

  // "[matmul tg(1,0,0) thread(3,2,0)] message": what is printed and handed to log handlers.
  std::string prefixed() const {
    auto text = [](const Size3& s) {
      return "(" + std::to_string(s.x) + "," + std::to_string(s.y) + "," + std::to_string(s.z) +
             ")";
    };
    return "[" + kernel + " tg" + text(threadgroup) + " thread" + text(thread) + "] " + message;
  }
};

}  // namespace metalsim::report
