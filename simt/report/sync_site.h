#pragma once
// Sync-point call sites and lane lists as reports name them. Shared by the runtimes of both
// execution modes so that a divergence reads the same whichever mode found it.
// (threadgroup_runner.cpp still has its own copies of same_site and lane_list: phase 2 of the
// lane-loop work moves it onto these.)
#include <cstdint>
#include <cstring>
#include <source_location>
#include <string>
#include <vector>

#include "simt/report/report.h"

namespace metalsim::report {

// One call site: the same line and column of the same file. libstdc++'s source_location is one
// pointer to a constant per call site: equal pointers are one site without reading the
// constant; unequal ones may still be (one line of a template instantiated twice).
inline bool same_site(const std::source_location& a, const std::source_location& b) {
  if constexpr (sizeof(std::source_location) == sizeof(const void*)) {
    const void* pa = nullptr;
    const void* pb = nullptr;
    std::memcpy(&pa, &a, sizeof pa);
    std::memcpy(&pb, &b, sizeof pb);
    if (pa == pb) return true;
  }
  return a.line() == b.line() && a.column() == b.column() &&
         (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

SourceSite to_site(const std::source_location& s);

// "lane 5", "lanes 0..31,40": ascending lanes, runs folded.
std::string lane_list(const std::vector<uint16_t>& lanes);

}  // namespace metalsim::report
