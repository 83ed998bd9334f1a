#include "host/cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace metalsim::cli {
namespace {

// The time left: what a time limit leaves, else the mean time per case over the cases to come
// (none before the first case is done).
std::string estimate(const Progress& p) {
  double left = -1;
  if (p.limit_seconds > 0) left = std::max(0.0, p.limit_seconds - p.seconds);
  else if (p.total > 0 && p.done > 0) left = p.seconds / double(p.done) * double(p.total - p.done);
  if (left < 0) return "";
  char text[32];
  std::snprintf(text, sizeof text, "~%.0fs left ", left);
  return text;
}

}  // namespace

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

ProgressBar::ProgressBar(std::ostream& err, bool enabled, size_t total,
                         std::chrono::steady_clock::duration quiet)
    : err_(err),
      enabled_(enabled),
      total_(total),
      start_(std::chrono::steady_clock::now()),
      quiet_(quiet) {}

std::string ProgressBar::render(const Progress& p, std::string_view current, size_t width) {
  char head[64];
  std::string line;
  if (p.total > 0) {
    const size_t bar = 24, filled = std::min(p.done, p.total) * bar / p.total;
    line = "[" + std::string(filled, '#') + std::string(bar - filled, ' ') + "] ";
    std::snprintf(head, sizeof head, "%zu/%zu ", p.done, p.total);
  } else {
    std::snprintf(head, sizeof head, "%zu cases ", p.done);
  }
  line += head;
  if (p.failures > 0)
    line += std::to_string(p.failures) + (p.failures == 1 ? " failure " : " failures ");
  std::snprintf(head, sizeof head, "%.0fs ", p.seconds);
  line += head;
  line += estimate(p);
  line += current;
  if (line.size() > width) line.resize(width);
  return line;
}

void ProgressBar::update(size_t done, std::string_view current, size_t failures) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < quiet_) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const Progress p{done, total_, failures, seconds, limit_seconds_};
  err_ << "\r\033[K" << render(p, current, 100) << std::flush;
  drawn_ = true;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) err_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace metalsim::cli
