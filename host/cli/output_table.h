#pragma once
// Column-aligned text tables for the human output of every subcommand.
#include <ostream>
#include <string>
#include <vector>

namespace metalsim::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  // Columns whose cells are right-aligned (numbers).
  void align_right(size_t column) { right_.resize(headers_.size()), right_[column] = true; }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> right_;
};

// "0.31x" for an error relative to the tolerance; "-" when nothing was compared.
std::string format_ratio(double ratio);
// "12.3 ms", "850 us", "1.20 s".
std::string format_seconds(double seconds);

}  // namespace metalsim::cli
