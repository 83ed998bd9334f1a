#pragma once
// Which families of checks a run turns on (simt/report/check_id.h lists the checks of each).
#include <cstdint>
#include <string>
#include <string_view>

namespace metalsim {

enum class CheckFamily : uint8_t { sync, init, mem, race, api };

// Parsed from "sync,init,mem,race", "all" or "none". api checks are always on: misuse is never
// silently accepted.
struct CheckSet {
  bool sync = true, init = false, mem = true, race = false;
  bool enabled(CheckFamily f) const;
  static bool parse(std::string_view text, CheckSet& out);
  static CheckSet all() { return {true, true, true, true}; }
  static CheckSet none() { return {false, false, false, false}; }
  static CheckSet from_environment();  // METALSIM_CHECKS, else the defaults above
  std::string str() const;             // "sync,mem" ("none" when empty)
  friend bool operator==(const CheckSet&, const CheckSet&) = default;
};

}  // namespace metalsim
