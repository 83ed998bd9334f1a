// metalsim run KERNEL --param=value ... | metalsim run 'KERNEL(a=1,b=2)': one case.
#include <memory>

#include "host/cli/commands.h"
#include "host/cli/output_json.h"

namespace metalsim::cli {

Action setup_run(CLI::App& sub, Io& io) {
  struct Options {
    std::string kernel;
    RunFlags flags;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->kernel, "a kernel name or a case id")->required();
  o->flags.add_to(sub, "sync,init,mem");
  sub.add_flag("--json", o->json, "the result as one JSON object");
  sub.allow_extras();
  sub.footer(
      "Parameters: --NAME=VALUE for each of the kernel's (metalsim list); missing ones take their "
      "fallback.");
  return [o, &io, &sub] {
    Case c;
    if (!build_single_case(o->kernel, sub.remaining(), o->flags.seed, c, io.err)) return kExitUsage;
    const CaseOutcome outcome = run_case(c, o->flags.options);
    if (o->json) write_json_line(io.out, case_json("run", outcome));
    else print_case(io.out, outcome);
    return spec::verdict_ok(outcome.verdict()) ? kExitOk : kExitFailed;
  };
}

}  // namespace metalsim::cli
