#pragma once
// Errors of the front: `file.metal:LINE: error: message`, never silently wrong output.
#include <stdexcept>
#include <string>

namespace metalsim::front {

struct FrontError : std::runtime_error {
  FrontError(int file_index, int line_number, const std::string& message)
      : std::runtime_error(message), file(file_index), line(line_number) {}
  int file;
  int line;
};

}  // namespace metalsim::front
