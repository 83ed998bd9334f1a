#pragma once
// A report, laid out like compute-sanitizer's: the check, the kernel, where in the grid, the
// .metal line, and what it conflicted with. ReportSink collects them from all workers.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "simt/base/size3.h"
#include "simt/report/check_id.h"

namespace metalsim::report {

struct SourceSite {
  std::string file;
  uint32_t line = 0;
  std::string function;
  bool known() const { return line != 0; }
  std::string str() const;        // "softmax.metal:42"
  std::string short_str() const;  // the file's name without its folder: "simdgroup_matrix.h:65"
};

struct LanePosition {
  metalsim::Size3 threadgroup{0, 0, 0};  // threadgroup_position_in_grid
  metalsim::Size3 thread{0, 0, 0};       // thread_position_in_threadgroup
  uint32_t simdgroup = 0;
  uint32_t simd_lane = 0;
};

struct Report {
  CheckId check = CheckId::api_misuse;
  std::string kernel;
  bool has_lane = false;
  LanePosition lane;
  // false: the threadgroup is known, the thread is not (a fault inside a lane loop, which runs
  // many lanes at once; lane.thread is then the first of them). docs/lanes.md says why.
  bool thread_known = true;
  // When the thread is not known: the lanes of the loop that was running ("lanes 0..31"), one of
  // which made the report.
  std::string running_lanes;
  SourceSite site;
  // The line of metalsim's MSL headers the report was made on, when `site` is the user's line
  // that called it (a simdgroup_load that read uninitialised memory); printed as a second line.
  SourceSite library_site;
  // Where `site` lies in a header of the user's (a kernel whose body is a template in a header):
  // the .metal line that called into it; else empty.
  SourceSite metal_call;
  // A report made in a collective's combine (no kernel frame on its stack): the .metal call of
  // the collective, the user's line when `site_trace` has none.
  SourceSite collective_call;
  SourceSite other_site;    // the conflicting call site or access
  std::string other_lanes;  // e.g. "threads (32..63,0,0)"
  std::string memory;       // "buffer(2)", "threadgroup(0)", ...
  bool has_offset = false;
  int64_t offset = 0;    // from the memory's byte 0 (negative: before it)
  std::string message;   // what was wrong, in words
  uint32_t repeats = 0;  // further identical reports folded into this one
  // Stack traces still to be turned into `site` and `other_site` (a sanitizer callback may
  // not run the symbolizer; the dispatch does it when it ends).
  std::vector<const void*> site_trace, other_trace;

  // From the check (check_severity): barrier.exited is a warning, every other check an error.
  Severity severity() const { return check_severity(check); }
  bool is_warning() const { return severity() == Severity::warning; }

  // Line 1 reads "<check>: <message>" for an error, "<check> (warning): <message>" for a warning.
  std::string format() const;
};

// The first of `reports` that is an error, nullptr when there is none (warnings alone).
const Report* first_error(const std::vector<Report>& reports);
// Whether any of `reports` is an error (a warning alone lets a dispatch complete).
inline bool any_error(const std::vector<Report>& reports) {
  return first_error(reports) != nullptr;
}
size_t count_warnings(const std::vector<Report>& reports);

class ReportSink {
 public:
  // Folds a report into an earlier one with the same check and site; the folded report is one
  // that names the conflicting access where any does, then the first of their lanes in grid
  // order, so it does not depend on the workers' timing.
  void add(Report report);
  bool empty() const;
  std::vector<Report> take();
  size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Report> reports_;
};

}  // namespace metalsim::report
