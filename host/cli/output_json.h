#pragma once
// --json: one JSON object per line (JSON Lines), one per case (or per spec for `list`), each
// with a "command" field. Results from shards merge by concatenating their outputs.
#include <ostream>

#include <nlohmann/json.hpp>

#include "host/cli/case_selection.h"

namespace metalsim::cli {

using nlohmann::json;

json params_json(const Params& params);
// Every field of a case: id, kernel, family, params, seed, schedule, checks, mode, strict,
// status, ok, error, counts, failure, reports (each with its check, severity "error" or
// "warning", message and text), warnings (how many reports are warnings), race, times and the
// repro command.
json case_json(const std::string& command, const CaseOutcome& outcome);
json spec_json(const KernelSpec& spec);
void write_json_line(std::ostream& out, const json& object);

}  // namespace metalsim::cli
