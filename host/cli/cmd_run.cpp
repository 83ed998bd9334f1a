// metalsim run KERNEL --param=value ... | metalsim run 'KERNEL(a=1,b=2)': one case of a built-in
// spec. metalsim run FILE.json | FILE.metal [--case FILE.json] [options]: one case of a user's
// kernel from a case file (case_file_cli.h).
#include <memory>

#include "host/cli/case_file_cli.h"
#include "host/cli/commands.h"
#include "host/cli/output_json.h"

namespace metalsim::cli {

Action setup_run(CLI::App& sub, Io& io) {
  struct Options {
    std::string kernel;
    RunFlags flags;
    CaseFileFlags file;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->kernel, "a kernel name, a case id, FILE.json or FILE.metal")
      ->required();
  o->flags.add_to(sub, "sync,init,mem");
  o->file.add_to(sub, true);
  sub.add_flag("--json", o->json, "the result as one JSON object");
  sub.allow_extras();
  sub.footer(
      "Parameters: --NAME=VALUE for each of the kernel's (metalsim list); missing ones take their "
      "fallback. FILE.json / FILE.metal: a case file and its options (docs/cli.md, \"Case "
      "files\").");
  return [o, &io, &sub] {
    Case c;
    const bool file = is_case_file_target(o->kernel);
    const bool built =
        file ? build_case_file_case(o->kernel, o->file, sub.remaining(), o->flags.seed, c, io.err)
             : build_single_case(o->kernel, sub.remaining(), o->flags.seed, c, io.err);
    if (!built) return kExitUsage;
    if (file) capture_outputs(static_cast<const CaseFileSpec&>(*c.spec), o->file, io.out);
    const CaseOutcome outcome = run_case(c, o->flags.options);
    if (o->json) write_json_line(io.out, case_json("run", outcome));
    else print_case(io.out, outcome);
    return spec::verdict_ok(outcome.verdict()) ? kExitOk : kExitFailed;
  };
}

}  // namespace metalsim::cli
