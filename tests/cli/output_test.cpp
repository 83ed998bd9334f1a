// Output formats: JSON lines parse back, JUnit XML is well formed and counts right, the trace is
// a JSON array of trace events, and the table and progress bar lay out as documented.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "host/cli/output_junit.h"
#include "host/cli/output_table.h"
#include "host/cli/progress_bar.h"
#include "simt/engine/kernel_variants.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
}

// A small XML well-formedness check: balanced tags, quoted attributes, known entities, no
// stray '<' or '&'. Counts elements by name into `counts`.
bool well_formed(const std::string& xml, std::map<std::string, int>& counts, std::string& why) {
  std::vector<std::string> stack;
  size_t i = 0;
  auto entity_ok = [&](size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (xml.compare(at, std::strlen(e), e) == 0) return true;
    return false;
  };
  if (xml.rfind("<?xml", 0) == 0) i = xml.find("?>") + 2;
  bool root_seen = false;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      if (!entity_ok(i)) return why = "bad entity at " + std::to_string(i), false;
      ++i;
      continue;
    }
    if (xml[i] != '<') {
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(xml[i])))
        return why = "text outside the root", false;
      ++i;
      continue;
    }
    const size_t end = xml.find('>', i);
    if (end == std::string::npos) return why = "unclosed tag", false;
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.starts_with("/")) {
      if (stack.empty() || stack.back() != tag.substr(1))
        return why = "mismatched </" + tag.substr(1) + ">", false;
      stack.pop_back();
      continue;
    }
    const bool self_closing = tag.ends_with("/");
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find_first_of(" \t\n"));
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
      return why = "bad tag name", false;
    // Attributes: name="value" pairs, values free of '<' and of bare '&'.
    static const std::regex attrs(R"((\s+[A-Za-z_:][-A-Za-z0-9_:.]*="[^"<]*")*\s*)");
    const std::string rest = tag.substr(name.size());
    if (!std::regex_match(rest, attrs)) return why = "bad attributes in <" + name + ">", false;
    for (size_t a = rest.find('&'); a != std::string::npos; a = rest.find('&', a + 1)) {
      bool known = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        known = known || rest.compare(a, std::strlen(e), e) == 0;
      if (!known) return why = "bad entity in <" + name + ">", false;
    }
    if (stack.empty() && root_seen) return why = "two roots", false;
    root_seen = true;
    ++counts[name];
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return why = "unclosed <" + stack.back() + ">", false;
  return root_seen || (why = "no root", false);
}

TEST(Output, CheckJsonLinesParse) {
  const CliRun r = cli({"check", "cli_scale", "cli_planted_tile", "--json"});
  EXPECT_EQ(r.code, kExitFailed);
  size_t n = 0, failed = 0;
  for (const auto& line : r.lines()) {
    const json j = json::parse(line);
    ++n;
    EXPECT_EQ(j.at("command"), "check");
    EXPECT_TRUE(j.at("params").is_object());
    EXPECT_TRUE(j.at("reports").is_array());
    failed += !j.at("ok").get<bool>();
  }
  EXPECT_EQ(n, 8u);
  EXPECT_EQ(failed, 1u);
  EXPECT_NE(r.err.find("7 passed, 1 failed"), std::string::npos)
      << "the summary goes to stderr: " << r.err;
}

TEST(Output, ListAndBenchJsonParse) {
  const CliRun list = cli({"list", "cli_*", "--json"});
  EXPECT_EQ(list.code, kExitOk);
  EXPECT_EQ(list.lines().size(), 4u);
  for (const auto& line : list.lines()) EXPECT_TRUE(json::parse(line).at("params").is_array());
  const CliRun bench = cli({"bench", "cli_scale", "--reps", "3", "--json"});
  EXPECT_EQ(bench.code, kExitOk) << bench.out << bench.err;
  const json b = json::parse(bench.out);
  EXPECT_EQ(b.at("fibers_samples").size(), 3u);
  EXPECT_GT(b.at("fibers_seconds").get<double>(), 0);
  EXPECT_GT(b.at("reference_seconds").get<double>(), 0);
}

TEST(Output, HumanListAndBench) {
  const CliRun list = cli({"list", "cli_planted_tile_as_documented"});
  EXPECT_NE(list.out.find("known bug: a last tile of 63"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("1..4096"), std::string::npos) << list.out;
  const CliRun bench = cli({"bench", "cli_scale", "--reps", "2"});
  EXPECT_NE(bench.out.find("fibers/base"), std::string::npos) << bench.out;
  EXPECT_NE(bench.out.find("cli_scale(n=4096,rows=8)"), std::string::npos) << bench.out;
}

TEST(Output, JunitIsWellFormed) {
  const fs::path file = temp_file("metalsim_junit.xml");
  const CliRun r = cli({"check", "cli_scale", "cli_planted_tile", "cli_planted_tile_as_documented",
                        "--junit", file.string()});
  EXPECT_EQ(r.code, kExitFailed);
  const std::string xml = read(file);
  std::map<std::string, int> counts;
  std::string why;
  EXPECT_TRUE(well_formed(xml, counts, why)) << why << "\n" << xml;
  EXPECT_EQ(counts["testsuites"], 1);
  EXPECT_EQ(counts["testcase"], 10);
  EXPECT_EQ(counts["failure"], 1);
  EXPECT_EQ(counts["system-out"], 2);  // the two known bugs reproduced
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
  fs::remove(file);
}

TEST(Output, XmlEscapingKeepsDocumentsWellFormed) {
  JunitCase c{"a.b", "k(x=1)", 0.5, true, "<&\"'>\x01", "line\n<tag>", "out & about", {}};
  c.properties = {{"warning", "barrier.exited: \"<a & b>\""}};
  std::ostringstream s;
  write_junit(s, "suite <1>", {c});
  std::map<std::string, int> counts;
  std::string why;
  EXPECT_TRUE(well_formed(s.str(), counts, why)) << why << "\n" << s.str();
  EXPECT_EQ(counts["property"], 1);  // a report's severity and text
  EXPECT_EQ(xml_escape("a<b&c"), "a&lt;b&amp;c");
}

TEST(Output, TraceIsAJsonArrayOfEvents) {
  const fs::path file = temp_file("metalsim_trace.json");
  const CliRun r = cli({"trace", "cli_scale", "--n=1000", "--rows=2", "--out", file.string()});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  const json events = json::parse(read(file));
  ASSERT_TRUE(events.is_array());
  bool dispatch = false;
  for (const auto& e : events) {
    EXPECT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name"));
    if (e.at("ph") == "X") {
      EXPECT_GE(e.at("dur").get<double>(), 0);
      dispatch = dispatch || e.at("name") == "dispatch cli_scale";
    }
  }
  EXPECT_TRUE(dispatch) << events.dump(1);
  fs::remove(file);
}

// The variant that ran each threadgroup, in the trace and by list (docs/architecture.md, "Two
// variants of every kernel"): checks that need the instrumentation run the checked variant,
// --checks sync the fast one; the hand-written cli_scale has one, the checked.
std::set<std::string> traced_variants(const std::string& checks) {
  const fs::path file = temp_file("metalsim_variant_trace.json");
  const CliRun r = cli(
      {"trace", "softmax", "--rows=3", "--cols=300", "--checks", checks, "--out", file.string()});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  std::set<std::string> variants;
  for (const auto& e : json::parse(read(file)))
    if (e.at("ph") == "X" && e.at("cat") == "threadgroup")
      variants.insert(e.at("args").at("variant").get<std::string>());
  fs::remove(file);
  return variants;
}

TEST(Output, TraceAndListNameTheKernelVariant) {
  if (!engine::fast_variants_built()) GTEST_SKIP() << "kernels built without the access-check pass";
  EXPECT_EQ(traced_variants("sync,mem"), std::set<std::string>{"checked"});
  EXPECT_EQ(traced_variants("sync"), std::set<std::string>{"fast"});
  const CliRun list = cli({"list", "--kernels", "--json", "softmax", "cli_scale"});
  ASSERT_EQ(list.code, kExitOk) << list.err;
  std::map<std::string, json> variants;
  for (const auto& line : list.lines()) {
    const json j = json::parse(line);
    variants[j.at("kernel").get<std::string>()] = j.at("variants");
  }
  EXPECT_EQ(variants["softmax"], json::array({"checked", "fast"})) << list.out;
  EXPECT_EQ(variants["cli_scale"], json::array({"checked"})) << list.out;
}

TEST(Output, TableAlignsColumns) {
  Table t({"kernel", "cases"});
  t.align_right(1);
  t.add({"a", "1"});
  t.add({"longer", "100"});
  std::ostringstream s;
  t.print(s);
  EXPECT_EQ(s.str(), "kernel  cases\n------  -----\na           1\nlonger    100\n");
  EXPECT_EQ(format_ratio(0.5), "0.50x");
  EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
}

TEST(Output, ProgressBarDrawsOnlyWhenEnabled) {
  EXPECT_EQ(ProgressBar::render(5, 10, 2.0, "k(n=1)", 100),
            "[############            ] 5/10 2s ~2s left k(n=1)");
  EXPECT_EQ(ProgressBar::render(7, 0, 1.0, "k", 100), "7 cases 1s k");
  // fuzz: failures, and with --time the time left of the limit.
  EXPECT_EQ(ProgressBar::render(Progress{7, 0, 2, 15.0, 45.0}, "k", 100),
            "7 cases 2 failures 15s ~30s left k");
  EXPECT_EQ(ProgressBar::render(Progress{0, 200, 0, 1.0, 0}, "k", 100),
            "[                        ] 0/200 1s k");
  std::ostringstream off, on;
  {
    ProgressBar bar(off, false, 3);
    bar.update(1, "x");
  }
  EXPECT_TRUE(off.str().empty());
  {
    ProgressBar bar(on, true, 3);
    bar.update(1, "x");
  }
  EXPECT_NE(on.str().find("1/3"), std::string::npos);
  // A run shorter than the quiet time draws nothing.
  std::ostringstream quiet;
  {
    ProgressBar bar(quiet, true, 3, std::chrono::seconds(60));
    bar.update(1, "x");
  }
  EXPECT_TRUE(quiet.str().empty());
}

}  // namespace
}  // namespace metalsim::cli::testing
