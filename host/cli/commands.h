#pragma once
// The subcommand table and what subcommands share: where output goes, the options every
// case-running command takes, and parameter parsing.
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "host/cli/case_selection.h"
#include "host/cli/shard.h"

namespace metalsim::cli {

// Exit statuses of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // a case failed (or a known bug was not reproduced)
inline constexpr int kExitUsage = 2;   // bad arguments, unknown kernel, invalid case

struct Io {
  std::ostream& out;
  std::ostream& err;
  bool progress = false;  // draw progress bars on `err` (stderr is a terminal)
};

// A subcommand adds its options to `sub` and returns what runs once they are parsed.
using Action = std::function<int()>;
struct Command {
  const char* name;
  const char* help;
  Action (*setup)(CLI::App& sub, Io& io);
};

Action setup_list(CLI::App& sub, Io& io);
Action setup_check(CLI::App& sub, Io& io);
Action setup_run(CLI::App& sub, Io& io);
Action setup_fuzz(CLI::App& sub, Io& io);
Action setup_bench(CLI::App& sub, Io& io);
Action setup_trace(CLI::App& sub, Io& io);
Action setup_model(CLI::App& sub, Io& io);

std::span<const Command> commands();

// `args` without the program name. Returns the exit status.
int run_cli(const std::vector<std::string>& args, Io io);

// --seed, --schedule, --checks, --workers, --watchdog, --mode, --strict: how cases run. CLI11
// parses each flag straight into the execution options the engine takes (a malformed value is a
// usage error naming the flag).
struct RunFlags {
  uint64_t seed = 1;  // the inputs'
  metalsim::ExecutionOptions options;

  void add_to(CLI::App& sub, const std::string& default_checks);
};

// Reads `--name=value` / `--name value` pairs left over by CLI11 into `params`; checks names
// against the spec. False (with a message) on anything else.
bool parse_param_args(const KernelSpec& spec, const std::vector<std::string>& extras,
                      Params& params, std::ostream& err);
// "KERNEL" or a full case id "KERNEL(a=1,b=2)": the spec and the parameters given.
const KernelSpec* resolve_kernel(const std::string& text, Params& params, std::ostream& err);
// One case from the command line, missing parameters at their fallback; false (with a message)
// on an unknown kernel, an unknown parameter or an invalid case.
bool build_single_case(const std::string& kernel, const std::vector<std::string>& extras,
                       uint64_t seed, Case& out, std::ostream& err);

// Prints one case in words (run, trace, fuzz replay).
void print_case(std::ostream& out, const CaseOutcome& outcome);

}  // namespace metalsim::cli
