#include "host/cli/commands.h"

#include <algorithm>
#include <cmath>

#include "host/cli/output_table.h"

namespace metalsim::cli {

// ------------------------------ the table

std::span<const Command> commands() {
  static const Command table[] = {
      {"list", "every kernel spec: family, summary, expectation and parameters", &setup_list},
      {"check", "every spec over its boundary sweep against its reference, checks on",
       &setup_check},
      {"run", "one case: KERNEL --param=value ... or a case id", &setup_run},
      {"fuzz", "random boundary-biased cases; failures shrunk to a minimal repro", &setup_fuzz},
      {"bench", "each spec's bench cases: emulated kernel time against the native reference",
       &setup_bench},
      {"trace", "a Chrome/Perfetto trace of one run", &setup_trace},
      {"model", "a SmolLM-135M-shaped model end to end: prefill and decode tokens/s", &setup_model},
  };
  return table;
}

int run_cli(const std::vector<std::string>& args, Io io) {
  CLI::App app{"metalsim: run Metal compute kernels on the CPU, check and fuzz them", "metalsim"};
  app.require_subcommand(1, 1);
  app.set_help_all_flag("--help-all", "help for every subcommand");
  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    actions.emplace_back(sub, c.setup(*sub, io));
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, io.out, io.err);
    return code == 0 ? kExitOk : kExitUsage;
  }
  for (auto& [sub, action] : actions)
    if (sub->parsed()) return action();
  return kExitUsage;
}

// ------------------------------ shared flags

void RunFlags::add_to(CLI::App& sub, const std::string& default_checks) {
  options = metalsim::ExecutionOptions::from_environment();
  metalsim::CheckSet::parse(default_checks, options.checks);
  sub.add_option("--seed", seed, "input seed (and the race check's random schedule)")
      ->capture_default_str();
  sub.add_option_function<std::string>(
         "--schedule",
         [this](const std::string& text) {
           if (!metalsim::SchedulePolicy::parse(text, options.schedule))
             throw CLI::ValidationError("--schedule",
                                        "'" + text + "' is not in-order, reversed or random:SEED");
         },
         "in-order, reversed or random:SEED")
      ->default_str(options.schedule.str());
  sub.add_option_function<std::string>(
         "--checks",
         [this](const std::string& text) {
           if (!metalsim::CheckSet::parse(text, options.checks))
             throw CLI::ValidationError(
                 "--checks", "'" + text + "' is not a list of sync,init,mem,race, all or none");
         },
         "sync,init,mem,race, all or none")
      ->default_str(default_checks);
  sub.add_option("--workers", options.workers, "threads running threadgroups (0: every core)")
      ->capture_default_str();
  sub.add_option("--watchdog", options.watchdog_seconds,
                 "seconds before a dispatch is stopped (0: none)");
  sub.add_option_function<std::string>(
         "--mode",
         [this](const std::string& text) {
           if (!metalsim::parse_execution_mode(text, options.mode))
             throw CLI::ValidationError("--mode", "'" + text + "' is not fibers, loops or auto");
         },
         "fibers, loops or auto (loops unless a check or the schedule needs fibers)")
      ->default_str(std::string(metalsim::execution_mode_name(options.mode)));
  sub.add_flag("--strict", options.strict,
               "warnings (barrier.exited) fail the case and the command (METALSIM_STRICT=1)");
}

// ------------------------------ parameters

bool parse_param_args(const KernelSpec& spec, const std::vector<std::string>& extras,
                      Params& params, std::ostream& err) {
  const auto defs = spec.params();
  for (size_t i = 0; i < extras.size(); ++i) {
    const std::string& arg = extras[i];
    if (arg.rfind("--", 0) != 0) {
      err << "metalsim: unexpected argument '" << arg << "'\n";
      return false;
    }
    std::string name = arg.substr(2), value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < extras.size()) {
      value = extras[++i];
    }
    const bool known =
        std::any_of(defs.begin(), defs.end(), [&](const auto& d) { return d.name == name; });
    if (!known) {
      err << "metalsim: " << spec.name() << " has no parameter '" << name << "'; it takes:";
      for (const auto& d : defs) err << " --" << d.name;
      err << "\n";
      return false;
    }
    try {
      size_t used = 0;
      params[name] = std::stoll(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      err << "metalsim: --" << name << " needs an integer, not '" << value << "'\n";
      return false;
    }
  }
  return true;
}

const KernelSpec* resolve_kernel(const std::string& text, Params& params, std::ostream& err) {
  std::string name;
  if (!spec::parse_case_id(text, name, params)) {
    err << "metalsim: cannot read '" << text << "' as KERNEL or KERNEL(a=1,b=2)\n";
    return nullptr;
  }
  const KernelSpec* spec = spec::SpecRegistry::find(name);
  if (spec == nullptr) {
    err << "metalsim: no kernel named '" << name << "' (metalsim list shows them)\n";
    return nullptr;
  }
  for (const auto& [k, v] : params) {
    const auto defs = spec->params();
    if (std::none_of(defs.begin(), defs.end(), [&](const auto& d) { return d.name == k; })) {
      err << "metalsim: " << name << " has no parameter '" << k << "'\n";
      return nullptr;
    }
  }
  return spec;
}

bool build_single_case(const std::string& kernel, const std::vector<std::string>& extras,
                       uint64_t seed, Case& out, std::ostream& err) {
  Params params;
  out.spec = resolve_kernel(kernel, params, err);
  if (out.spec == nullptr || !parse_param_args(*out.spec, extras, params, err)) return false;
  out.params = out.spec->complete(params);
  out.seed = seed;
  std::string why;
  if (!out.spec->valid(out.params, &why)) {
    err << "metalsim: invalid case " << out.id() << ": " << why << "\n";
    return false;
  }
  return true;
}

void print_case(std::ostream& out, const CaseOutcome& o) {
  const Case& c = o.subject;
  const auto& res = o.result;
  out << "case       " << c.id() << "\n";
  out << "run        seed " << c.seed << ", schedule " << o.options.schedule.str() << ", checks "
      << o.options.checks.str() << ", mode " << metalsim::execution_mode_name(o.options.mode)
      << (o.options.strict ? ", strict" : "") << "\n";
  out << "status     " << spec::verdict_name(o.verdict());
  if (!res.failure.empty()) out << ": " << res.failure;
  out << "\n";
  if (!o.judgement.why.empty()) out << "expected   " << o.judgement.why << "\n";
  if (c.spec->expectation() == spec::Expectation::known_bug)
    out << "known bug  " << c.spec->known_bug() << "\n";
  out << "error      " << format_ratio(res.elements > 0 ? res.max_error : std::nan(""))
      << " of tolerance over " << res.elements << " elements (unwritten " << res.unwritten
      << ", non-finite " << res.non_finite << ")\n";
  if (!res.worst.empty()) out << "worst      " << res.worst << "\n";
  out << "time       kernel " << format_seconds(res.kernel_seconds) << ", reference "
      << format_seconds(res.reference_seconds) << "\n";
  if (!o.race.empty()) out << "race       " << o.race << "\n";
  const size_t warnings = report::count_warnings(res.reports);
  out << "reports    " << res.reports.size();
  if (warnings > 0)
    out << " (" << warnings << (warnings == 1 ? " warning" : " warnings")
        << (o.options.strict ? ", failures under --strict" : ", not failures without --strict")
        << ")";
  out << "\n";
  for (const auto& rep : res.reports) {
    const std::string text = rep.format();
    out << text << (text.ends_with('\n') ? "" : "\n");
  }
  out << "reproduce  " << spec::repro_command(c, o.options) << "\n";
}

}  // namespace metalsim::cli
