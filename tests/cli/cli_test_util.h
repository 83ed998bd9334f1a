#pragma once
// Runs the metalsim program in-process and keeps what it printed.
#include <sstream>
#include <string>
#include <vector>

#include "host/cli/commands.h"

namespace metalsim::cli::testing {

struct CliRun {
  int code = -1;
  std::string out, err;

  std::vector<std::string> lines() const {
    std::vector<std::string> v;
    std::istringstream s(out);
    for (std::string line; std::getline(s, line);) v.push_back(line);
    return v;
  }
  std::string last_line() const {
    auto v = lines();
    return v.empty() ? "" : v.back();
  }
};

inline CliRun cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  CliRun r;
  r.code = run_cli(args, Io{out, err, false});
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace metalsim::cli::testing
