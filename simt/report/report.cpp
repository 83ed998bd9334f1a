#include "simt/report/report.h"

#include <sstream>
#include <tuple>

namespace metalsim::report {
namespace {

std::string position(const metalsim::Size3& p) {
  std::ostringstream out;
  out << '(' << p.x << ',' << p.y << ',' << p.z << ')';
  return out.str();
}

// Lanes in grid order: threadgroup (z, y, x), then thread (z, y, x).
bool earlier_lane(const LanePosition& a, const LanePosition& b) {
  auto key = [](const LanePosition& l) {
    return std::tuple(l.threadgroup.z, l.threadgroup.y, l.threadgroup.x, l.thread.z, l.thread.y,
                      l.thread.x);
  };
  return key(a) < key(b);
}

bool names_other_access(const Report& r) { return r.other_site.known() || !r.other_trace.empty(); }

// Whether `a` should stand for a finding rather than `b`: ThreadSanitizer may have lost the
// earlier access's stack for some of a finding's reports (its trace recycled), not for all.
bool more_telling(const Report& a, const Report& b) {
  if (names_other_access(a) != names_other_access(b)) return names_other_access(a);
  return a.has_lane && b.has_lane && earlier_lane(a.lane, b.lane);
}

bool same_finding(const Report& a, const Report& b) {
  return a.check == b.check && a.kernel == b.kernel && a.site.file == b.site.file &&
         a.site.line == b.site.line && a.memory == b.memory &&
         (a.site_trace.empty() ? b.site_trace.empty()
                               : !b.site_trace.empty() && a.site_trace[0] == b.site_trace[0]);
}

}  // namespace

std::string SourceSite::str() const {
  if (!known()) return "<unknown line>";
  return file + ":" + std::to_string(line);
}

std::string SourceSite::short_str() const {
  if (!known()) return "<unknown line>";
  return file.substr(file.rfind('/') + 1) + ":" + std::to_string(line);
}

std::string Report::format() const {
  std::ostringstream out;
  const char* bar = "========= ";
  out << bar << check_name(check) << (is_warning() ? " (warning): " : ": ") << message << '\n';
  out << bar << "    in kernel '" << kernel << "'";
  if (site.known()) out << " at " << site.str();
  out << '\n';
  if (library_site.known()) out << bar << "    in metalsim's " << library_site.short_str() << '\n';
  if (metal_call.known()) out << bar << "    called from " << metal_call.str() << '\n';
  if (has_lane && thread_known) {
    out << bar << "    by thread " << position(lane.thread) << " of threadgroup "
        << position(lane.threadgroup) << " (simdgroup " << lane.simdgroup << ", lane "
        << lane.simd_lane << ")\n";
  } else if (has_lane) {
    out << bar << "    in threadgroup " << position(lane.threadgroup) << ", by one of "
        << (running_lanes.empty() ? std::string("its threads") : running_lanes)
        << " (a lane loop runs them together; --mode fibers names the thread)\n";
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

const Report* first_error(const std::vector<Report>& reports) {
  for (const Report& r : reports)
    if (!r.is_warning()) return &r;
  return nullptr;
}

size_t count_warnings(const std::vector<Report>& reports) {
  size_t n = 0;
  for (const Report& r : reports) n += r.is_warning();
  return n;
}

void ReportSink::add(Report report) {
  std::lock_guard lock(mutex_);
  for (Report& r : reports_) {
    if (!same_finding(r, report)) continue;
    // The folded report is the most telling (one that names the conflicting access), then the
    // first lane in grid order, not the first to be filed: with several workers, which
    // threadgroup files first is a matter of timing.
    if (more_telling(report, r)) {
      report.repeats = r.repeats;
      r = std::move(report);
    }
    ++r.repeats;
    return;
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

}  // namespace metalsim::report
