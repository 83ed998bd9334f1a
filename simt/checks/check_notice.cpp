#include "simt/checks/check_notice.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace metalsim::checks {

void notice_once(const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  if (!said.insert(text).second) return;
  std::fprintf(stderr, "metalsim: %s\n", text.c_str());
}

}  // namespace metalsim::checks
