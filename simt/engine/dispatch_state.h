#pragma once
// What the workers of one dispatch share (internal to the engine).
#include <atomic>

#include "simt/abi/dispatch_request.h"
#include "simt/engine/kernel_log.h"
#include "simt/engine/lane_loops.h"
#include "simt/report/report.h"

namespace metalsim::checks::race {
class DispatchShadow;  // race_shadow.h
}

namespace metalsim::engine {

struct DispatchState {
  explicit DispatchState(const abi::DispatchRequest& r) : request(r), serial(next_serial()) {}
  const abi::DispatchRequest& request;
  const uint64_t serial;  // unique per dispatch: workers re-read the request when it changes
  const LaneLoopKernel* lane_loops = nullptr;  // set: the dispatch runs in lane loops
  // The code that runs: the kernel's entry (fibers) or its lane-loop step, of `variant`.
  abi::KernelEntry entry = nullptr;
  LaneStep step = nullptr;
  KernelVariant variant = KernelVariant::checked;
  checks::race::DispatchShadow* race = nullptr;  // set: the shadow racecheck is on
  report::ReportSink reports;
  KernelLog log;                  // what the kernels logged (kernel_log.h)
  std::atomic<bool> stop{false};  // a fault or the watchdog: skip the threadgroups not begun
  // Racecheck: the host's writes happen before the dispatch's lanes; the lanes' writes happen
  // before the host reads the results (race_annotations.h).
  char start_token = 0;
  char finish_token = 0;

 private:
  static uint64_t next_serial() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }
};

}  // namespace metalsim::engine
