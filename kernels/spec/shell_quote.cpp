#include "kernels/spec/shell_quote.h"

namespace metalsim::spec {

std::string shell_quote(std::string_view text) {
  std::string q = "'";
  for (char ch : text) {
    if (ch == '\'') q += "'\\''";
    else q += ch;
  }
  return q + "'";
}

}  // namespace metalsim::spec
