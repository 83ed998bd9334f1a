// ------------------------------ attributes
// MSL attributes ([[buffer(0)]], [[thread_position_in_grid]], [[kernel]], [[host_name(..)]],
// [[function_constant(..)]], [[max_total_threads_per_threadgroup(..)]], ...) have been read by
// the rules before; C++ compilers would warn about them, so they go. Standard C++ attributes
// stay.
#include <string_view>

#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

bool is_standard(std::string_view n) {
  return n == "likely" || n == "unlikely" || n == "maybe_unused" || n == "nodiscard" || n == "fallthrough" ||
         n == "noreturn" || n == "deprecated" || n == "no_unique_address" || n.substr(0, 5) == "gnu::";
}

}  // namespace

void rewrite_attributes(Tokens& t, RewriteContext&) {
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (!is_attribute_start(t, i)) {
      out.push_back(t[i]);
      continue;
    }
    size_t e = attribute_end(t, i);
    bool keep = true;
    for (const Attribute& a : parse_attributes(t, i)) keep = keep && is_standard(a.name);
    if (keep) {
      out.insert(out.end(), t.begin() + static_cast<long>(i), t.begin() + static_cast<long>(e));
    } else if (e < t.size()) {
      t[e].space_before = t[e].space_before || t[i].space_before;
    }
    i = e - 1;
  }
  t = std::move(out);
}

}  // namespace metalsim::front
