#pragma once
// A check that was asked for and cannot run says so, once per process and reason, on stderr
// ("metalsim: ..."): METALSIM_CHECKS=all never skips one in silence (docs/checks.md).
#include <string>

namespace metalsim::checks {

void notice_once(const std::string& text);

}  // namespace metalsim::checks
