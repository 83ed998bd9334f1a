// The hoisted range test (__metalsim_access_range, simt/checks/access_check.h) against a
// per-byte model of the shadow's encoding (simt/checks/access_shadow.h): for random ranges over a
// marked region, it may say "plain" only when the shadow allows every byte of every access of the
// range, the test each access would make alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "simt/checks/access_check.h"
#include "simt/checks/access_shadow.h"

namespace metalsim::checks {
namespace {

constexpr size_t kRegion = 64 * 1024;

class AccessRange : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!shadow::active()) GTEST_SKIP() << shadow::unavailable_reason();
    memory_ = static_cast<char*>(std::aligned_alloc(4096, kRegion));
    shadow::mark_valid(memory_, kRegion);
  }
  void TearDown() override {
    if (memory_ == nullptr) return;
    shadow::mark(memory_, kRegion, shadow::kUnused);
    std::free(memory_);
  }
  // One byte as the encoding says: 0 every byte of the granule, 1..15 its first N, kValidFrom | N
  // those from N on, anything else none.
  static bool byte_allowed(const char* p) {
    const uint8_t v = shadow::granule_value(p);
    const unsigned offset = unsigned(reinterpret_cast<uintptr_t>(p) % shadow::kGranule);
    if (v == 0) return true;
    if (v < shadow::kGranule) return offset < v;
    if ((v & 0xF0) == shadow::kValidFrom) return offset >= (v & 0x0F);
    return false;
  }
  // What the accesses' own tests would say: every byte of each access is allowed.
  static bool model(const char* start, uint64_t bytes, const int64_t (&step)[3],
                    const uint64_t (&last)[3]) {
    for (uint64_t a = 0; a <= last[0]; ++a)
      for (uint64_t b = 0; b <= last[1]; ++b)
        for (uint64_t c = 0; c <= last[2]; ++c) {
          const char* p =
              start + step[0] * int64_t(a) + step[1] * int64_t(b) + step[2] * int64_t(c);
          for (uint64_t i = 0; i < bytes; ++i)
            if (!byte_allowed(p + i)) return false;
        }
    return true;
  }
  static uint32_t range(const char* start, uint64_t bytes, const int64_t (&step)[3],
                        const uint64_t (&last)[3]) {
    return __metalsim_access_range(start, bytes, step[0], last[0], step[1], last[1], step[2],
                                   last[2]);
  }
  char* memory_ = nullptr;
};

TEST_F(AccessRange, ContiguousAndStridedRangesInsideArePlain) {
  EXPECT_EQ(range(memory_, 4, {4, 0, 0}, {1023, 0, 0}), 1u);                // 4 KiB, one stride
  EXPECT_EQ(range(memory_, 2, {512, 0, 0}, {15, 0, 0}), 1u);                // rms_norm's stride
  EXPECT_EQ(range(memory_, 2, {4096, 18, 0}, {7, 127, 0}), 1u);             // rows of blocks
  EXPECT_EQ(range(memory_ + kRegion - 4, 4, {-4, 0, 0}, {100, 0, 0}), 1u);  // downwards
}

TEST_F(AccessRange, OneGranuleNotPlainFailsTheRange) {
  // The last access of the last iteration runs one byte into a granule marked unused.
  shadow::mark(memory_ + 8192, 16, shadow::kUnused);
  EXPECT_EQ(range(memory_, 4, {4, 0, 0}, {2048, 0, 0}), 0u);
  EXPECT_EQ(range(memory_, 4, {4, 0, 0}, {2047, 0, 0}), 1u);
  // A strided walk whose far end (k = 16) lands in it.
  EXPECT_EQ(range(memory_ + 8, 4, {512, 0, 0}, {16, 0, 0}), 0u);
  EXPECT_EQ(range(memory_ + 8, 4, {512, 0, 0}, {15, 0, 0}), 1u);
}

TEST_F(AccessRange, APartialGranuleAllowsExactlyItsValidBytes) {
  // A buffer's odd tail: 12 valid bytes. A loop to the buffer's end is allowed (before, a partial
  // granule failed every range that reached it, and the loop tested each access); one more
  // element is not, nor an access that straddles the end.
  shadow::mark(memory_ + 8192, 16, shadow::kUnused);
  shadow::mark_valid(memory_ + 8192, 12);
  EXPECT_EQ(range(memory_ + 8192 - 64, 4, {4, 0, 0}, {18, 0, 0}), 1u);
  EXPECT_EQ(range(memory_ + 8192 - 64, 4, {4, 0, 0}, {19, 0, 0}), 0u);
  EXPECT_EQ(range(memory_ + 8192 - 56, 8, {8, 0, 0}, {8, 0, 0}), 0u);  // its bytes 8..15
  EXPECT_EQ(range(memory_ + 8192 - 64, 8, {4, 0, 0}, {17, 0, 0}), 1u);
  // A binding that starts at byte 4 of a granule: the bytes from 4 on.
  shadow::mark_valid_from(memory_ + 4096 + 4);
  EXPECT_EQ(range(memory_ + 4096 + 4, 4, {4, 0, 0}, {30, 0, 0}), 1u);
  EXPECT_EQ(range(memory_ + 4096, 4, {4, 0, 0}, {30, 0, 0}), 0u);
}

TEST_F(AccessRange, WrapsAndRacecheckRefuse) {
  EXPECT_EQ(range(memory_, 4, {-4, 0, 0}, {uint64_t(INT64_MAX), 0, 0}), 0u);
  EXPECT_EQ(range(memory_, 4, {INT64_MAX, 0, 0}, {2, 0, 0}), 0u);
  EXPECT_EQ(range(reinterpret_cast<const char*>(uintptr_t(1) << 47) - 8, 16, {0, 0, 0}, {0, 0, 0}),
            0u);
  __metalsim_access_every = 1;
  EXPECT_EQ(range(memory_, 4, {4, 0, 0}, {15, 0, 0}), 0u);
  __metalsim_access_every = 0;
}

TEST_F(AccessRange, NeverPlainWhereAnAccessIsNot) {
  std::mt19937_64 rng(23);
  std::uniform_int_distribution<int> pick(0, 5);
  int allowed = 0, refused_allowed = 0;
  for (int round = 0; round < 2000; ++round) {
    // A few unplain granules and odd tails, then a random range around them.
    shadow::mark_valid(memory_, kRegion);
    for (int i = 0; i < pick(rng); ++i) {
      char* g = memory_ + (rng() % (kRegion / 16)) * 16;
      switch (rng() % 3) {
        case 0: shadow::mark(g, 16, shadow::kUnused); break;
        case 1: shadow::mark_valid(g, 1 + rng() % 15); break;
        default: shadow::mark_valid_from(g + 1 + rng() % 15); break;
      }
    }
    const uint64_t bytes = 1 + rng() % 32;
    int64_t step[3];
    uint64_t last[3];
    int64_t below = 0, above = 0;
    for (int d = 0; d < 3; ++d) {
      const int64_t choices[] = {0, 1, 2, 4, 16, 18, 64, 512, 4096, -4, -512};
      step[d] = choices[rng() % 11];
      last[d] = rng() % 12;
      (step[d] < 0 ? below : above) += std::abs(step[d]) * int64_t(last[d]);
    }
    const int64_t room = int64_t(kRegion) - below - above - int64_t(bytes);
    if (room <= 0) continue;
    const char* start = memory_ + below + int64_t(rng() % uint64_t(room));
    // The range may refuse more than the accesses would (a gap it scans), never less.
    if (range(start, bytes, step, last) != 0) {
      ++allowed;
      EXPECT_TRUE(model(start, bytes, step, last))
          << "round " << round << " bytes " << bytes << " steps " << step[0] << "," << step[1]
          << "," << step[2] << " lasts " << last[0] << "," << last[1] << "," << last[2];
    } else if (model(start, bytes, step, last)) {
      ++refused_allowed;
    }
  }
  EXPECT_GT(allowed, 500);
  // Refusing what every access allows is the gap scans' doing, and rare.
  EXPECT_LT(refused_allowed, allowed / 4);
}

}  // namespace
}  // namespace metalsim::checks
