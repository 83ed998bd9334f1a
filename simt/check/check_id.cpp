#include "simt/check/check_id.h"

#include <cstdlib>

namespace metalsim::check {
namespace {

struct Row {
  std::string_view name;
  std::string_view meaning;
  Family family;
};

constexpr Row kRows[] = {
#define METALSIM_CHECK_ROW(e, id, fam, what) {id, what, Family::fam},
    METALSIM_CHECKS(METALSIM_CHECK_ROW)
#undef METALSIM_CHECK_ROW
};

}  // namespace

std::string_view check_name(CheckId id) { return kRows[static_cast<int>(id)].name; }
std::string_view check_meaning(CheckId id) { return kRows[static_cast<int>(id)].meaning; }
Family check_family(CheckId id) { return kRows[static_cast<int>(id)].family; }

bool check_implemented(CheckId id) {
#if defined(METALSIM_RACECHECK)
  constexpr bool racecheck = true;
#else
  constexpr bool racecheck = false;
#endif
  switch (id) {
    case CheckId::race_threadgroup:
    case CheckId::race_device: return racecheck;
    default: return true;
  }
}

bool CheckSet::enabled(Family f) const {
  switch (f) {
    case Family::sync: return sync;
    case Family::init: return init;
    case Family::mem: return mem;
    case Family::race: return race;
    case Family::api: return true;
  }
  return true;
}

bool CheckSet::parse(std::string_view text, CheckSet& out) {
  CheckSet set{false, false, false, false};
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view word = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (word == "all") set = all();
    else if (word == "none") set = {false, false, false, false};
    else if (word == "sync") set.sync = true;
    else if (word == "init") set.init = true;
    else if (word == "mem") set.mem = true;
    else if (word == "race") set.race = true;
    else return false;
  }
  out = set;
  return true;
}

CheckSet CheckSet::from_environment() {
  CheckSet set;
  if (const char* env = std::getenv("METALSIM_CHECKS"); env != nullptr) parse(env, set);
  return set;
}

}  // namespace metalsim::check
