#pragma once
// --shard i/N: case k of a campaign belongs to shard k % N (i counts from 0). Every shard
// generates the same global sequence of cases and keeps its own, so the shards are disjoint
// and their union is the unsharded campaign, whatever N.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace metalsim::cli {

struct Shard {
  uint32_t index = 0;
  uint32_t count = 1;

  bool owns(size_t k) const { return k % count == index; }
  std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
  // "i/N" with 0 <= i < N; false (and `out` unchanged) otherwise.
  static bool parse(std::string_view text, Shard& out);
};

}  // namespace metalsim::cli
