#include "simt/report/sync_site.h"

namespace metalsim::report {

SourceSite to_site(const std::source_location& s) {
  return {s.file_name(), s.line(), s.function_name()};
}

std::string lane_list(const std::vector<uint16_t>& lanes) {
  std::string out = lanes.size() == 1 ? "lane " : "lanes ";
  for (size_t i = 0; i < lanes.size(); ++i) {
    size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    if (i > 0) out += ",";
    out += std::to_string(lanes[i]);
    if (j > i) out += ".." + std::to_string(lanes[j]);
    i = j;
  }
  return out;
}

}  // namespace metalsim::report
