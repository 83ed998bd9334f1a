// Every kernel attribute, for every thread, over odd 1-D, 2-D and 3-D grids, partial edge
// threadgroups and threadgroup sizes that are not multiples of 32, against a scalar model.
#include <gtest/gtest.h>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

constexpr int kBuiltins = 20;
constexpr int kWords = kBuiltins * 3;

void record_builtins(const BoundArgs& a, const LaneCursor& lane) {
  auto grid = lane.value(Builtin::thread_position_in_grid);
  auto size = lane.value(Builtin::threads_per_grid);
  uint64_t linear = (uint64_t(grid.z) * size.y + grid.y) * size.x + grid.x;
  uint32_t* out = buffer<uint32_t>(a, 0) + linear * kWords;
  for (int b = 0; b < kBuiltins; ++b) {
    auto v = lane.value(static_cast<Builtin>(b));
    out[b * 3 + 0] = v.x;
    out[b * 3 + 1] = v.y;
    out[b * 3 + 2] = v.z;
  }
}
HandKernel builtins_kernel("test_builtins", {device_arg("out", 0, 4)}, &lane_loop<record_builtins>);

struct Case {
  MTL::Size grid;
  MTL::Size tg;
  bool by_threads;
};

abi::BuiltinValue expected(Builtin b, const Case& c, uint32_t gx, uint32_t gy, uint32_t gz) {
  const uint32_t tx = uint32_t(c.tg.width), ty = uint32_t(c.tg.height), tz = uint32_t(c.tg.depth);
  auto ceil_div = [](uint64_t a, uint64_t d) { return uint32_t((a + d - 1) / d); };
  const uint32_t nx = c.by_threads ? uint32_t(c.grid.width) : uint32_t(c.grid.width) * tx;
  const uint32_t ny = c.by_threads ? uint32_t(c.grid.height) : uint32_t(c.grid.height) * ty;
  const uint32_t nz = c.by_threads ? uint32_t(c.grid.depth) : uint32_t(c.grid.depth) * tz;
  const uint32_t gpx = ceil_div(nx, tx), gpy = ceil_div(ny, ty), gpz = ceil_div(nz, tz);
  const uint32_t px = gx / tx, py = gy / ty, pz = gz / tz;
  const uint32_t lx = gx % tx, ly = gy % ty, lz = gz % tz;
  // Edge threadgroups of dispatchThreads are partial: their size is what is left.
  const uint32_t sx = std::min(tx, nx - px * tx), sy = std::min(ty, ny - py * ty),
                 sz = std::min(tz, nz - pz * tz);
  const uint32_t lin = (lz * sy + ly) * sx + lx;
  const uint32_t count = sx * sy * sz;
  const uint32_t dispatch_count = tx * ty * tz;
  switch (b) {
    case Builtin::thread_position_in_grid: return {gx, gy, gz};
    case Builtin::thread_position_in_threadgroup: return {lx, ly, lz};
    case Builtin::threadgroup_position_in_grid: return {px, py, pz};
    case Builtin::threads_per_threadgroup: return {sx, sy, sz};
    case Builtin::threadgroups_per_grid: return {gpx, gpy, gpz};
    case Builtin::threads_per_grid: return {nx, ny, nz};
    case Builtin::dispatch_threads_per_threadgroup: return {tx, ty, tz};
    case Builtin::grid_origin: return {0, 0, 0};
    case Builtin::grid_size: return {nx, ny, nz};
    case Builtin::thread_index_in_threadgroup: return {lin};
    case Builtin::thread_index_in_simdgroup: return {lin % 32};
    case Builtin::simdgroup_index_in_threadgroup: return {lin / 32};
    case Builtin::simdgroups_per_threadgroup: return {(count + 31) / 32};
    case Builtin::dispatch_simdgroups_per_threadgroup: return {(dispatch_count + 31) / 32};
    case Builtin::threads_per_simdgroup: return {32};
    case Builtin::thread_execution_width: return {32};
    case Builtin::thread_index_in_quadgroup: return {lin % 4};
    case Builtin::quadgroup_index_in_threadgroup: return {lin / 4};
    case Builtin::quadgroups_per_threadgroup: return {(count + 3) / 4};
    case Builtin::dispatch_quadgroups_per_threadgroup: return {(dispatch_count + 3) / 4};
  }
  return {};
}

class BuiltinsTest : public ::testing::TestWithParam<Case> {};

TEST_P(BuiltinsTest, EveryThreadSeesTheModelsValues) {
  const Case c = GetParam();
  Harness h;
  const uint64_t nx = c.by_threads ? c.grid.width : c.grid.width * c.tg.width;
  const uint64_t ny = c.by_threads ? c.grid.height : c.grid.height * c.tg.height;
  const uint64_t nz = c.by_threads ? c.grid.depth : c.grid.depth * c.tg.depth;
  const uint64_t threads = nx * ny * nz;
  std::vector<uint32_t> poison(threads * kWords, 0xDEADBEEFu);
  auto out = h.buffer(poison);
  auto* cb = h.run(
      "test_builtins", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, c.grid, c.tg, c.by_threads);
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  for (uint32_t gz = 0; gz < nz; ++gz)
    for (uint32_t gy = 0; gy < ny; ++gy)
      for (uint32_t gx = 0; gx < nx; ++gx) {
        const uint64_t linear = (uint64_t(gz) * ny + gy) * nx + gx;
        for (int b = 0; b < kBuiltins; ++b) {
          auto want = expected(static_cast<Builtin>(b), c, gx, gy, gz);
          const uint32_t* v = got + linear * kWords + b * 3;
          ASSERT_TRUE(v[0] == want.x && v[1] == want.y && v[2] == want.z)
              << abi::builtin_name(static_cast<Builtin>(b)) << " of thread (" << gx << "," << gy
              << "," << gz << "): got (" << v[0] << "," << v[1] << "," << v[2] << ") want ("
              << want.x << "," << want.y << "," << want.z << ")";
        }
      }
}

INSTANTIATE_TEST_SUITE_P(
    Grids, BuiltinsTest,
    ::testing::Values(Case{{3, 1, 1}, {70, 1, 1}, false},    // 1-D, partial last simdgroup
                      Case{{2, 3, 1}, {5, 7, 1}, false},     // 2-D, 35 threads
                      Case{{2, 2, 3}, {3, 4, 5}, false},     // 3-D, 60 threads
                      Case{{1, 1, 1}, {1024, 1, 1}, false},  // the largest threadgroup
                      Case{{100, 1, 1}, {32, 1, 1}, true},   // dispatchThreads, partial edge
                      Case{{13, 9, 1}, {4, 4, 1}, true},     // 2-D partial edges
                      Case{{5, 6, 7}, {2, 4, 3}, true},      // 3-D partial edges
                      Case{{1, 1, 1}, {1, 1, 1}, false}));   // one thread

}  // namespace
}  // namespace metalsim::testing
