// LaneLoopState::value, which lane bodies read their built-ins from, gives what the fibers'
// ThreadgroupGeometry::value gives, for every built-in, lane and threadgroup of several grids.
#include <gtest/gtest.h>

#include <vector>

#include "simt/engine/lane_loops.h"

namespace metalsim::engine {
namespace {

struct Grid {
  Size3 threads, tg;
};

TEST(LaneLoopBuiltins, EveryBuiltinMatchesTheFibersTable) {
  for (const Grid& grid : {Grid{{300, 1, 1}, {128, 1, 1}}, Grid{{20, 9, 3}, {8, 4, 2}},
                           Grid{{1024, 2, 1}, {1024, 1, 1}}, Grid{{5, 5, 5}, {2, 3, 4}}}) {
    const abi::DispatchGeometry d = abi::DispatchGeometry::for_threads(grid.threads, grid.tg);
    for (uint64_t linear = 0; linear < d.threadgroups.volume(); ++linear) {
      abi::ThreadgroupGeometry tg;
      tg.dispatch = &d;
      tg.position = d.threadgroup_position(linear);
      tg.size = d.threadgroup_size_at(tg.position);
      tg.thread_count = uint32_t(tg.size.volume());
      tg.simdgroup_count = (tg.thread_count + abi::kSimdWidth - 1) / abi::kSimdWidth;
      std::vector<uint16_t> aos(tg.thread_count * 3), x, y, z;
      for (uint32_t k = 0, i = 0; k < tg.size.z; ++k)
        for (uint32_t j = 0; j < tg.size.y; ++j)
          for (uint32_t h = 0; h < tg.size.x; ++h, ++i) {
            aos[i * 3] = uint16_t(h), aos[i * 3 + 1] = uint16_t(j), aos[i * 3 + 2] = uint16_t(k);
            x.push_back(uint16_t(h)), y.push_back(uint16_t(j)), z.push_back(uint16_t(k));
          }
      tg.local = reinterpret_cast<const uint16_t(*)[3]>(aos.data());
      LaneLoopState s;
      s.dispatch = &d;
      s.position = tg.position;
      s.size = tg.size;
      s.thread_count = tg.thread_count;
      s.simdgroup_count = tg.simdgroup_count;
      s.local_x = x.data(), s.local_y = y.data(), s.local_z = z.data();
      for (uint32_t lane = 0; lane < tg.thread_count; ++lane)
        for (int b = 0; b <= int(abi::Builtin::dispatch_quadgroups_per_threadgroup); ++b) {
          const abi::BuiltinValue want = tg.value(abi::Builtin(b), lane);
          const abi::BuiltinValue got = s.value(abi::Builtin(b), lane);
          ASSERT_TRUE(want.x == got.x && want.y == got.y && want.z == got.z)
              << abi::builtin_name(abi::Builtin(b)) << " lane " << lane << " threadgroup " << linear
              << ": fibers (" << want.x << "," << want.y << "," << want.z << "), lane loops ("
              << got.x << "," << got.y << "," << got.z << ")";
        }
    }
  }
}

}  // namespace
}  // namespace metalsim::engine
