#include "host/cli/output_junit.h"

#include <cstdio>
#include <fstream>

namespace metalsim::cli {

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (u < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') break;  // not allowed in XML 1.0
        out += ch;
    }
  }
  return out;
}

JunitCase junit_case(const CaseOutcome& o) {
  JunitCase c;
  c.classname = "metalsim." + o.subject.spec->family() + "." + o.subject.spec->name();
  c.name = o.subject.id();
  c.seconds = o.seconds;
  c.failed = !spec::verdict_ok(o.verdict());
  const std::string repro = "reproduce: " + spec::repro_command(o.subject, o.options) + "\n";
  std::string reports;
  for (const auto& r : o.result.reports) {
    reports += r.format() + "\n";
    c.properties.emplace_back(report::severity_name(r.severity()),
                              std::string(report::check_name(r.check)) + ": " + r.message);
  }
  if (c.failed) {
    c.message = std::string(spec::verdict_name(o.verdict())) + ": " +
                (o.result.failure.empty() ? o.subject.spec->known_bug() : o.result.failure) +
                (o.judgement.why.empty() ? "" : " (" + o.judgement.why + ")");
    c.details = reports + repro;
  } else if (o.verdict() == Verdict::known_bug_reproduced) {
    c.system_out = "known bug reproduced: " + o.subject.spec->known_bug() + "\n" +
                   o.result.failure + "\n" + reports + repro;
  } else if (!o.result.reports.empty()) {
    c.system_out = "passed with warnings (failures under --strict):\n" + reports + repro;
  }
  return c;
}

void write_junit(std::ostream& out, const std::string& suite, const std::vector<JunitCase>& cases) {
  size_t failures = 0;
  double total = 0;
  for (const auto& c : cases) {
    failures += c.failed;
    total += c.seconds;
  }
  auto secs = [](double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", s);
    return std::string(buf);
  };
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites tests=\"" << cases.size() << "\" failures=\"" << failures << "\" time=\""
      << secs(total) << "\">\n";
  out << "  <testsuite name=\"" << xml_escape(suite) << "\" tests=\"" << cases.size()
      << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"0\" time=\"" << secs(total)
      << "\">\n";
  for (const auto& c : cases) {
    out << "    <testcase classname=\"" << xml_escape(c.classname) << "\" name=\""
        << xml_escape(c.name) << "\" time=\"" << secs(c.seconds) << "\"";
    if (!c.failed && c.system_out.empty() && c.properties.empty()) {
      out << "/>\n";
      continue;
    }
    out << ">\n";
    if (!c.properties.empty()) {
      out << "      <properties>\n";
      for (const auto& [name, value] : c.properties)
        out << "        <property name=\"" << xml_escape(name) << "\" value=\"" << xml_escape(value)
            << "\"/>\n";
      out << "      </properties>\n";
    }
    if (c.failed)
      out << "      <failure message=\"" << xml_escape(c.message) << "\" type=\"failure\">"
          << xml_escape(c.details) << "</failure>\n";
    if (!c.system_out.empty())
      out << "      <system-out>" << xml_escape(c.system_out) << "</system-out>\n";
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

bool write_junit_file(const std::string& path, const std::string& suite,
                      const std::vector<JunitCase>& cases) {
  std::ofstream file(path);
  if (!file) return false;
  write_junit(file, suite, cases);
  return bool(file);
}

}  // namespace metalsim::cli
