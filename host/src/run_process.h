#pragma once
// Runs a program to completion and collects what it printed: the kernel compiler of runtime
// compilation (runtime_compiler.cpp).
#include <string>
#include <vector>

namespace metalsim::host {

struct ProcessResult {
  int exit_status = -1;  // the program's exit status; -1 when it could not start or was killed
  std::string output;    // stdout and stderr, interleaved as written
  std::string failure;   // why it could not start or how it ended, when not by exit(0..255)
};

// argv[0] is the program's path (not searched in PATH).
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace metalsim::host
