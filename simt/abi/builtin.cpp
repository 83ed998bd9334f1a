#include "simt/abi/builtin.h"

namespace metalsim::abi {
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

}  // namespace metalsim::abi
