#pragma once
// A one-line progress bar redrawn on stderr, shown only when stderr is a terminal so logs,
// pipes and CI output stay clean.
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace metalsim::cli {

class ProgressBar {
 public:
  // total 0: unknown (a time-bounded fuzz): shows the count and the elapsed time.
  ProgressBar(std::ostream& err, bool enabled, size_t total);
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Before running `current`.
  void update(size_t done, std::string_view current);
  // Clears the line.
  void finish();

  // The line that update() draws, for tests.
  static std::string render(size_t done, size_t total, double seconds, std::string_view current,
                            size_t width);

 private:
  std::ostream& err_;
  bool enabled_;
  size_t total_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

// True when file descriptor 2 is a terminal.
bool stderr_is_terminal();

}  // namespace metalsim::cli
