#include "simt/engine/builtin.h"

namespace metalsim::engine {
namespace {

struct Row {
  std::string_view name;
  int components;
};

constexpr Row kRows[] = {
#define METALSIM_BUILTIN_ROW(name, n) {#name, n},
    METALSIM_BUILTINS(METALSIM_BUILTIN_ROW)
#undef METALSIM_BUILTIN_ROW
};

}  // namespace

std::string_view builtin_name(Builtin b) { return kRows[static_cast<int>(b)].name; }
int builtin_components(Builtin b) { return kRows[static_cast<int>(b)].components; }

bool builtin_from_name(std::string_view name, Builtin& out) {
  for (size_t i = 0; i < std::size(kRows); ++i) {
    if (kRows[i].name == name) {
      out = static_cast<Builtin>(i);
      return true;
    }
  }
  return false;
}

}  // namespace metalsim::engine
