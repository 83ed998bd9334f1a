#pragma once
// Text made one word of a POSIX shell, for the repro commands metalsim prints.
#include <string>
#include <string_view>

namespace metalsim::spec {

std::string shell_quote(std::string_view text);

}  // namespace metalsim::spec
