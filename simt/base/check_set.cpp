#include "simt/base/check_set.h"

#include <cstdlib>

namespace metalsim {

bool CheckSet::enabled(CheckFamily f) const {
  switch (f) {
    case CheckFamily::sync: return sync;
    case CheckFamily::init: return init;
    case CheckFamily::mem: return mem;
    case CheckFamily::race: return race;
    case CheckFamily::api: return true;
  }
  return true;
}

bool CheckSet::parse(std::string_view text, CheckSet& out) {
  CheckSet set = none();
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view word = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (word == "all") set = all();
    else if (word == "none") set = none();
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

std::string CheckSet::str() const {
  std::string s;
  auto add = [&](bool on, const char* word) {
    if (!on) return;
    if (!s.empty()) s += ",";
    s += word;
  };
  add(sync, "sync");
  add(init, "init");
  add(mem, "mem");
  add(race, "race");
  return s.empty() ? "none" : s;
}

}  // namespace metalsim
