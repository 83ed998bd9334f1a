#include "host/cli/output_json.h"

#include <cmath>

namespace metalsim::cli {

json params_json(const Params& params) {
  json p = json::object();
  for (const auto& [k, v] : params) p[k] = v;
  return p;
}

json case_json(const std::string& command, const CaseOutcome& o) {
  const Case& r = o.subject;
  json reports = json::array();
  for (const auto& rep : o.result.reports)
    reports.push_back({{"check", std::string(report::check_name(rep.check))},
                       {"severity", std::string(report::severity_name(rep.severity()))},
                       {"message", rep.message},
                       {"text", rep.format()}});
  // JSON has no inf or NaN: an unbounded error is written as null.
  const json error = std::isfinite(o.result.max_error) ? json(o.result.max_error) : json(nullptr);
  return {{"command", command},
          {"id", r.id()},
          {"kernel", r.spec->name()},
          {"family", r.spec->family()},
          {"params", params_json(r.params)},
          {"seed", r.seed},
          {"schedule", o.options.schedule.str()},
          {"checks", o.options.checks.str()},
          {"mode", std::string(metalsim::execution_mode_name(o.options.mode))},
          {"strict", o.options.strict},
          {"status", std::string(spec::verdict_name(o.verdict()))},
          {"ok", spec::verdict_ok(o.verdict())},
          {"expected", o.judgement.why},
          {"passed", o.result.passed},
          {"max_error", error},
          {"elements", o.result.elements},
          {"unwritten", o.result.unwritten},
          {"non_finite", o.result.non_finite},
          {"worst", o.result.worst},
          {"failure", o.result.failure},
          {"reports", reports},
          {"warnings", report::count_warnings(o.result.reports)},
          {"race", o.race},
          {"mode_divergence", o.mode_divergence},
          {"kernel_seconds", o.result.kernel_seconds},
          {"reference_seconds", o.result.reference_seconds},
          {"seconds", o.seconds},
          {"repro", spec::repro_command(r, o.options)}};
}

json spec_json(const KernelSpec& spec) {
  json params = json::array();
  for (const auto& d : spec.params())
    params.push_back({{"name", d.name},
                      {"min", d.min},
                      {"max", d.max},
                      {"choices", d.choices},
                      {"boundaries", d.boundaries},
                      {"fallback", d.fallback},
                      {"help", d.help}});
  const bool bug = spec.expectation() == spec::Expectation::known_bug;
  return {{"command", "list"},
          {"kernel", spec.name()},
          {"family", spec.family()},
          {"summary", spec.summary()},
          {"expectation", bug ? "known_bug" : "pass"},
          {"known_bug", spec.known_bug()},
          {"params", params},
          {"sweep_cases", spec.sweep().size()},
          {"bench_cases", spec.bench_cases().size()}};
}

void write_json_line(std::ostream& out, const json& object) {
  out << object.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace metalsim::cli
