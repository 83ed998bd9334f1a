#pragma once
// What the workers of one dispatch share (internal to the engine).
#include <atomic>

#include "simt/check/report.h"
#include "simt/engine/dispatch.h"

namespace metalsim::engine {

struct DispatchState {
  explicit DispatchState(const DispatchRequest& r) : request(r) {}
  const DispatchRequest& request;
  check::ReportSink reports;
  std::atomic<bool> stop{false};  // a fault or the watchdog: skip the threadgroups not begun
  std::atomic<bool> timed_out{false};
};

}  // namespace metalsim::engine
