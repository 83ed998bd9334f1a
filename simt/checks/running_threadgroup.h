#pragma once
// What the checks see of the threadgroup the calling worker runs: the running lane, the
// dispatch's request, its threadgroup memory, and where a report goes. The runner implements it;
// the checks include this header, never a runner's (the runners include the checks' headers and
// call their hooks), so the checks and the runners do not depend on each other both ways.
#include <cstdint>
#include <source_location>
#include <string>

#include "simt/abi/dispatch_request.h"
#include "simt/report/report.h"

namespace metalsim::fault {
struct FaultRecord;  // fault.h
}

namespace metalsim::checks {

namespace race {
class WorkerShadow;  // race_shadow.h
}

class RunningThreadgroup {
 public:
  // The calling worker's while it runs a threadgroup on fibers, else nullptr.
  static RunningThreadgroup* current() { return current_; }

  virtual uint32_t current_lane() const = 0;
  virtual const abi::DispatchRequest& request() const = 0;
  // Whether `address` lies in this threadgroup's threadgroup memory: then its region's name
  // ("threadgroup(0)") and the byte offset in it.
  virtual bool describe_threadgroup_memory(const void* address, std::string& region,
                                           uint64_t& offset) const = 0;
  // A report about `lane` of this threadgroup (the kernel, its position in the grid, `site`).
  virtual report::Report lane_report(report::CheckId id, uint32_t lane,
                                     const std::source_location* site) = 0;
  virtual void report(report::Report r) = 0;
  // From inside a sanitizer callback, which must not take locks: filed when the threadgroup ends.
  virtual void defer_report(report::Report r) = 0;
  // What a fault of the running lane hit, as its report.
  virtual report::Report classify_fault(const fault::FaultRecord& fault) = 0;
  // The shadow racecheck's part of this worker while a dispatch with it runs, else nullptr.
  virtual race::WorkerShadow* race() const = 0;

 protected:
  RunningThreadgroup() = default;
  ~RunningThreadgroup() = default;
  RunningThreadgroup(const RunningThreadgroup&) = delete;
  RunningThreadgroup& operator=(const RunningThreadgroup&) = delete;
  static void set_current(RunningThreadgroup* running) { current_ = running; }

 private:
  static inline thread_local RunningThreadgroup* current_ = nullptr;
};

}  // namespace metalsim::checks
