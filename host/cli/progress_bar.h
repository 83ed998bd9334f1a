#pragma once
// A one-line progress bar redrawn on stderr, shown only when stderr is a terminal so logs,
// pipes and CI output stay clean.
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace metalsim::cli {

// What one line shows: cases done of `total` (0: unknown, as in a time-bounded fuzz), failures,
// the time elapsed and, where it can be told, the time left.
struct Progress {
  size_t done = 0, total = 0, failures = 0;
  double seconds = 0;
  double limit_seconds = 0;  // a time-bounded run's length (0: none): the estimate is what is left
};

class ProgressBar {
 public:
  // `quiet`: draw nothing before this much time has passed, so a short run prints no bar.
  ProgressBar(std::ostream& err, bool enabled, size_t total,
              std::chrono::steady_clock::duration quiet = {});
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // A time-bounded run: the estimate is the time left of `seconds`.
  void set_time_limit(double seconds) { limit_seconds_ = seconds; }
  // Before running `current`.
  void update(size_t done, std::string_view current, size_t failures = 0);
  // Clears the line (the next update draws it again).
  void finish();

  // The line that update() draws, for tests.
  static std::string render(const Progress& p, std::string_view current, size_t width);
  static std::string render(size_t done, size_t total, double seconds, std::string_view current,
                            size_t width) {
    return render(Progress{done, total, 0, seconds, 0}, current, width);
  }

 private:
  std::ostream& err_;
  bool enabled_;
  size_t total_;
  double limit_seconds_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::duration quiet_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

// True when file descriptor 2 is a terminal.
bool stderr_is_terminal();

}  // namespace metalsim::cli
