// --shard i/N: shards are disjoint and their union is the unsharded campaign, for fuzz and check.
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace metalsim::cli::testing {
namespace {

TEST(Shard, Parses) {
  Shard s;
  EXPECT_TRUE(Shard::parse("2/5", s));
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.str(), "2/5");
  for (const char* bad : {"5/5", "1/0", "a/2", "1", "1/2x", "-1/2", ""}) EXPECT_FALSE(Shard::parse(bad, s)) << bad;
  EXPECT_EQ(s.str(), "2/5");
}

// Each JSON line's case, as "index id seed schedule".
std::multiset<std::string> cases_of(const CliRun& r) {
  std::multiset<std::string> out;
  for (const auto& line : r.lines()) {
    const auto j = nlohmann::json::parse(line);
    out.insert(std::to_string(j.value("case_index", 0)) + " " + j.at("id").get<std::string>() + " " +
               std::to_string(j.at("seed").get<uint64_t>()) + " " + j.at("schedule").get<std::string>());
  }
  return out;
}

void expect_partition(const std::vector<std::string>& base, size_t expected) {
  const CliRun all = cli(base);
  const auto whole = cases_of(all);
  EXPECT_EQ(whole.size(), expected) << all.out << all.err;
  for (uint32_t n : {2u, 3u, 5u}) {
    std::multiset<std::string> merged;
    for (uint32_t i = 0; i < n; ++i) {
      auto args = base;
      args.push_back("--shard");
      args.push_back(std::to_string(i) + "/" + std::to_string(n));
      for (const auto& c : cases_of(cli(args))) {
        EXPECT_EQ(merged.count(c), 0u) << "case in two shards: " << c;
        merged.insert(c);
      }
    }
    EXPECT_EQ(merged, whole) << "shards of " << n;
  }
}

TEST(Shard, FuzzShardsAreDisjointAndComplete) {
  expect_partition({"fuzz", "cli_scale", "--cases", "12", "--seed", "3", "--json"}, 12);
}

TEST(Shard, CheckShardsAreDisjointAndComplete) {
  expect_partition({"check", "cli_scale", "cli_planted_tile_as_documented", "--json"}, 6);
}

}  // namespace
}  // namespace metalsim::cli::testing
