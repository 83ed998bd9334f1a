#include "simt/engine/kernel_log.h"

#include <algorithm>
#include <cstdio>

#include "simt/abi/dispatch_request.h"

namespace metalsim::engine {
namespace {

struct Current {
  KernelLog* log = nullptr;
  const abi::DispatchRequest* request = nullptr;
  uint64_t linear_threadgroup = 0;
  Size3 position{0, 0, 0};
  Size3 size{0, 0, 0};  // the threadgroup's actual size (partial at a grid's edge)
  uint64_t next = 0;    // the order of the next line
};
thread_local Current tls_current;

}  // namespace

void KernelLog::add(report::LogLine line) {
  std::lock_guard lock(mutex_);
  lines_.push_back(std::move(line));
}

std::vector<report::LogLine> KernelLog::take() {
  std::lock_guard lock(mutex_);
  std::vector<report::LogLine> out = std::move(lines_);
  lines_.clear();
  std::sort(out.begin(), out.end(), [](const report::LogLine& a, const report::LogLine& b) {
    return a.linear_threadgroup != b.linear_threadgroup
               ? a.linear_threadgroup < b.linear_threadgroup
               : a.order < b.order;
  });
  return out;
}

LoggingThreadgroup::LoggingThreadgroup(KernelLog& log, const abi::DispatchRequest& request,
                                       uint64_t linear_threadgroup, Size3 position, Size3 size) {
  tls_current = {&log, &request, linear_threadgroup, position, size, 0};
}

LoggingThreadgroup::~LoggingThreadgroup() { tls_current = {}; }

void log_message(uint32_t lane, report::LogLevel level, const char* subsystem, const char* category,
                 const char* message) {
  Current& c = tls_current;
  if (c.log == nullptr) {
    std::fprintf(stderr, "%s\n", message);
    return;
  }
  report::LogLine line;
  line.kernel = c.request->kernel->name;
  line.threadgroup = c.position;
  const uint32_t sx = std::max(c.size.x, 1u), sy = std::max(c.size.y, 1u);
  line.thread = {lane % sx, (lane / sx) % sy, lane / (sx * sy)};
  line.linear_threadgroup = c.linear_threadgroup;
  line.order = c.next++;
  line.level = level;
  line.subsystem = subsystem != nullptr ? subsystem : "";
  line.category = category != nullptr ? category : "";
  line.message = message;
  c.log->add(std::move(line));
}

}  // namespace metalsim::engine
