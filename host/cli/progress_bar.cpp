#include "host/cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace metalsim::cli {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

ProgressBar::ProgressBar(std::ostream& err, bool enabled, size_t total)
    : err_(err), enabled_(enabled), total_(total), start_(std::chrono::steady_clock::now()) {}

std::string ProgressBar::render(size_t done, size_t total, double seconds, std::string_view current,
                                size_t width) {
  char head[64];
  std::string line;
  if (total > 0) {
    const size_t bar = 24, filled = done * bar / total;
    line = "[" + std::string(filled, '#') + std::string(bar - filled, ' ') + "] ";
    std::snprintf(head, sizeof head, "%zu/%zu %.0fs ", done, total, seconds);
  } else {
    std::snprintf(head, sizeof head, "%zu cases %.0fs ", done, seconds);
  }
  line += head;
  line += current;
  if (line.size() > width) line.resize(width);
  return line;
}

void ProgressBar::update(size_t done, std::string_view current) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  err_ << "\r\033[K" << render(done, total_, seconds, current, 100) << std::flush;
  drawn_ = true;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace metalsim::cli
