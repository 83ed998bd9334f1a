#pragma once
// Why a lane body cannot become lane loops: one line naming the source site and the reason.
// The kernel then runs on fibers, and `metalsim list` shows this line.
#include <string>

namespace metalsim::lanes {

struct Failure {
  std::string site;  // "file.metal:42" (or the body's declaration when nothing better is known)
  std::string what;  // "an indirect call may reach a sync point"
  std::string text() const { return site.empty() ? what : site + ": " + what; }
};

}  // namespace metalsim::lanes
