#include "host/cli/shard.h"

#include <charconv>

namespace metalsim::cli {

bool Shard::parse(std::string_view text, Shard& out) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  uint32_t i = 0, n = 0;
  const char* end = text.data() + text.size();
  auto a = std::from_chars(text.data(), text.data() + slash, i);
  auto b = std::from_chars(text.data() + slash + 1, end, n);
  if (a.ec != std::errc{} || a.ptr != text.data() + slash || b.ec != std::errc{} || b.ptr != end)
    return false;
  if (n == 0 || i >= n) return false;
  out = {i, n};
  return true;
}

}  // namespace metalsim::cli
