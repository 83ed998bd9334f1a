#pragma once
// --junit FILE: JUnit XML, one <testcase> per case, for CI dashboards. A known bug reproduced
// passes (with a note in <system-out>); a failure carries its reason, reports and repro; every
// report is also a <property> named by its severity, so a passing case keeps its warnings.
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/cli/case_selection.h"

namespace metalsim::cli {

struct JunitCase {
  std::string classname;  // "metalsim.<family>.<kernel>"
  std::string name;       // the case id
  double seconds = 0;
  bool failed = false;
  std::string message;  // one line
  std::string details;  // reports and the repro command
  std::string system_out;
  // One <property> per report, named by its severity ("error", "warning"), valued
  // "<check>: <message>": a passing case keeps its warnings (barrier.exited) here and in
  // <system-out>.
  std::vector<std::pair<std::string, std::string>> properties;
};

JunitCase junit_case(const CaseOutcome& outcome);
void write_junit(std::ostream& out, const std::string& suite, const std::vector<JunitCase>& cases);
// Writes to `path`; false when it cannot be opened.
bool write_junit_file(const std::string& path, const std::string& suite,
                      const std::vector<JunitCase>& cases);
// Escapes &<>"' and drops characters XML 1.0 forbids.
std::string xml_escape(std::string_view text);

}  // namespace metalsim::cli
