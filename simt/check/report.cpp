#include "simt/check/report.h"

#include <sstream>

namespace metalsim::check {
namespace {

std::string position(const engine::Size3& p) {
  std::ostringstream out;
  out << '(' << p.x << ',' << p.y << ',' << p.z << ')';
  return out.str();
}

}  // namespace

std::string SourceSite::str() const {
  if (!known()) return "<unknown line>";
  return file + ":" + std::to_string(line);
}

std::string Report::format() const {
  std::ostringstream out;
  const char* bar = "========= ";
  out << bar << check_name(check) << ": " << message << '\n';
  out << bar << "    in kernel '" << kernel << "'";
  if (site.known()) out << " at " << site.str();
  out << '\n';
  if (has_lane) {
    out << bar << "    by thread " << position(lane.thread) << " of threadgroup "
        << position(lane.threadgroup) << " (simdgroup " << lane.simdgroup << ", lane "
        << lane.simd_lane << ")\n";
  }
  if (!memory.empty()) {
    out << bar << "    memory " << memory;
    if (has_offset) out << " at byte offset " << offset;
    out << '\n';
  }
  if (other_site.known() || !other_lanes.empty()) {
    out << bar << "    conflicting with";
    if (!other_lanes.empty()) out << ' ' << other_lanes;
    if (other_site.known()) out << " at " << other_site.str();
    out << '\n';
  }
  if (repeats > 0) out << bar << "    (" << repeats << " more like this)\n";
  return out.str();
}

void ReportSink::add(Report report) {
  std::lock_guard lock(mutex_);
  for (Report& r : reports_) {
    if (r.check == report.check && r.kernel == report.kernel && r.site.file == report.site.file &&
        r.site.line == report.site.line && r.memory == report.memory &&
        (r.site_trace.empty() ? report.site_trace.empty()
                              : !report.site_trace.empty() && r.site_trace[0] == report.site_trace[0])) {
      ++r.repeats;
      return;
    }
  }
  reports_.push_back(std::move(report));
}

bool ReportSink::empty() const {
  std::lock_guard lock(mutex_);
  return reports_.empty();
}

size_t ReportSink::size() const {
  std::lock_guard lock(mutex_);
  return reports_.size();
}

std::vector<Report> ReportSink::take() {
  std::lock_guard lock(mutex_);
  return std::move(reports_);
}

}  // namespace metalsim::check
