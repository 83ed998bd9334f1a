#pragma once
// The command line's side of case files (docs/cli.md, "Case files"): `metalsim run` and
// `metalsim fuzz` take FILE.json (a case file), or FILE.metal with --case FILE.json and/or the
// options below, which add to or replace the case file's fields:
//   --kernel NAME                 the kernel
//   --grid X,Y,Z | --threads X,Y,Z   threadgroups, or threads (dispatchThreads)
//   --threadgroup X,Y,Z           threads per threadgroup
//   --buffer I:TYPE:COUNT[:FILL][:out]   FILL: random, random(lo,hi), zero, const(v),
//                                 range(start,step), file(path); out: an output
//   --bytes I:TYPE:V1,V2,...      setBytes of one value per field
//   --threadgroup-memory I:BYTES  setThreadgroupMemoryLength
//   -I DIR                        an include directory for the source (after the case file's)
// Sizes are expressions of the parameters (expression.h); --NAME=VALUE sets a parameter, and,
// for a parameter no case file declares, declares it with that value.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "host/cli/case_file_spec.h"
#include "host/cli/case_selection.h"
#include "kernels/spec/case_runner.h"

namespace metalsim::cli {

struct CaseFileFlags {
  std::string case_path;
  std::string kernel;
  std::string grid, threads, threadgroup;
  std::vector<std::string> buffers, bytes, threadgroup_memory;
  std::vector<std::string> include_dirs;  // -I, relative to the working directory
  std::string save_dir;                   // run: each output written as DIR/NAME.bin
  size_t print = 0;                       // run: the first N elements of each output printed

  // `outputs`: also --save and --print (run).
  void add_to(CLI::App& sub, bool outputs);
};

// FILE.json or FILE.metal: a case file's target rather than a built-in kernel.
bool is_case_file_target(const std::string& text);

// The spec of `target` with `flags` applied; `extras` (the --NAME=VALUE arguments) declare the
// parameters no case file declares. Kept alive for the process (a later load of the same name
// replaces it). nullptr, with the reason on `err`, on any error in the files or options.
const CaseFileSpec* load_case_file_spec(const std::string& target, const CaseFileFlags& flags,
                                        const std::vector<std::string>& extras, std::ostream& err);

// A case-file spec as a fuzz corpus entry keeps it: the case file as read (the command line's
// options applied), the absolute path it was read from ("" for the command line alone) and its
// command-line name. load_case_file_record loads the spec back (fuzz --replay), recompiling the
// .metal file as it is now; nullptr (with a message) when it no longer loads.
nlohmann::json case_file_record(const CaseFileSpec& spec);
const CaseFileSpec* load_case_file_record(const nlohmann::json& record, std::ostream& err);

// One case of the case file `target`: --NAME=VALUE arguments in `extras`, the rest at their
// defaults; false (with a message) on any error in the files, the options or the case.
bool build_case_file_case(const std::string& target, const CaseFileFlags& flags,
                          const std::vector<std::string>& extras, uint64_t seed, spec::Case& out,
                          std::ostream& err);

// The specs `patterns` name, for fuzz: each case-file target loaded with `flags`, the other
// patterns selected from the registry (select_specs). `ok` false (with a message) when a case
// file could not be loaded.
std::vector<const spec::KernelSpec*> select_specs_or_case_files(
    const std::vector<std::string>& patterns, const CaseFileFlags& flags, std::ostream& err,
    bool& ok);

// The cases `filters` name, for check: each case-file target's sweep (loaded with `flags`), and
// select_sweep of the other filters. `ok` false (with a message) when a case file could not be
// loaded.
Selection select_sweep_or_case_files(const std::vector<std::string>& filters,
                                     const CaseFileFlags& flags, std::ostream& err, bool& ok);

// Writes or prints the outputs of the spec's next run as the flags ask.
void capture_outputs(const CaseFileSpec& spec, const CaseFileFlags& flags, std::ostream& out);

}  // namespace metalsim::cli
