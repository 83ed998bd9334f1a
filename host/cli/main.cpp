// The metalsim program: the subcommand table (host/cli/commands.cpp) over every kernel family
// linked in.
#include <iostream>

#include "host/cli/commands.h"
#include "host/cli/progress_bar.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  metalsim::cli::Io io{std::cout, std::cerr, metalsim::cli::stderr_is_terminal()};
  return metalsim::cli::run_cli(args, io);
}
