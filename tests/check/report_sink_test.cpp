// ReportSink: reports of one finding fold into one, which names the conflicting access where
// any report does and then the first lane in grid order, whatever order the workers filed them
// in; different findings stay apart.
#include <gtest/gtest.h>

#include "simt/report/report.h"

namespace metalsim::report {
namespace {

Report race_at(uint32_t group, uint32_t thread, uint32_t line = 30) {
  Report r;
  r.check = CheckId::race_threadgroup;
  r.kernel = "k";
  r.has_lane = true;
  r.lane.threadgroup = {group, 0, 0};
  r.lane.thread = {thread, 0, 0};
  r.site = {"k.metal", line, "k"};
  r.memory = "threadgroup(0)";
  return r;
}

TEST(ReportSink, FoldedReportNamesTheFirstLaneInGridOrder) {
  for (const std::vector<std::pair<uint32_t, uint32_t>>& filing :
       {std::vector<std::pair<uint32_t, uint32_t>>{{1, 5}, {0, 9}, {0, 3}, {2, 0}},
        std::vector<std::pair<uint32_t, uint32_t>>{{0, 3}, {2, 0}, {1, 5}, {0, 9}}}) {
    ReportSink sink;
    for (auto [group, thread] : filing) sink.add(race_at(group, thread));
    std::vector<Report> reports = sink.take();
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].lane.threadgroup.x, 0u);
    EXPECT_EQ(reports[0].lane.thread.x, 3u);
    EXPECT_EQ(reports[0].repeats, 3u);
  }
}

// ThreadSanitizer may lose the earlier access's stack for some reports of a finding (its trace
// recycled): the folded report is one that names it, even when a lane before it did not.
TEST(ReportSink, FoldedReportNamesTheConflictingAccessWhereAnyDoes) {
  for (bool telling_first : {false, true}) {
    ReportSink sink;
    Report blind = race_at(0, 3);
    Report telling = race_at(1, 7);
    telling.other_trace = {reinterpret_cast<const void*>(0x1234)};
    if (telling_first) {
      sink.add(telling);
      sink.add(blind);
    } else {
      sink.add(blind);
      sink.add(telling);
    }
    std::vector<Report> reports = sink.take();
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].lane.threadgroup.x, 1u);
    EXPECT_EQ(reports[0].other_trace.size(), 1u);
    EXPECT_EQ(reports[0].repeats, 1u);
  }
}

TEST(ReportSink, DifferentSitesStayApart) {
  ReportSink sink;
  sink.add(race_at(0, 1, 30));
  sink.add(race_at(0, 1, 31));
  EXPECT_EQ(sink.take().size(), 2u);
}

}  // namespace
}  // namespace metalsim::report
