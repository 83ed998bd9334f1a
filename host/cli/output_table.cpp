#include "host/cli/output_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace metalsim::cli {

void Table::print(std::ostream& out) const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - cell.size(), ' ');
      const bool right = c < right_.size() && right_[c];
      if (c > 0) text += "  ";
      text += right ? pad + cell : (c + 1 == width.size() ? cell : cell + pad);
    }
    out << text << "\n";
  };
  line(headers_);
  std::vector<std::string> rule;
  for (size_t w : width) rule.emplace_back(w, '-');
  line(rule);
  for (const auto& row : rows_) line(row);
}

std::string format_ratio(double ratio) {
  if (std::isnan(ratio)) return "-";
  if (std::isinf(ratio)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, ratio < 100 ? "%.2fx" : "%.3gx", ratio);
  return buf;
}

std::string format_seconds(double s) {
  char buf[32];
  if (s >= 1) std::snprintf(buf, sizeof buf, "%.2f s", s);
  else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f us", s * 1e6);
  return buf;
}

}  // namespace metalsim::cli
