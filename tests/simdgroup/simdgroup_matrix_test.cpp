// simdgroup_matrix (simt/include/metal_simdgroup_matrix) against Eigen 8x8 products: loads with
// strides, origins and transposition from device and threadgroup memory, stores likewise, float
// and half, Apple's per-lane layout, partial simdgroups and the partial-participation report.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

#include <metal_stdlib>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

using namespace metal;
using Mat = Eigen::Matrix<float, 8, 8, Eigen::RowMajor>;

constexpr uint32_t kSide = 16, kBuf = kSide * kSide;  // every source/destination is 16x16

struct Place {
  uint32_t ld, x, y, transpose;
};
struct MatParams {
  Place a, b, c, d;
  uint32_t accumulate;       // d = a*b + c, else d = a*b
  uint32_t via_threadgroup;  // load a and b from threadgroup memory
  uint32_t scale_diagonal;   // then d = d * diag(2) (simdgroup_matrix(T) constructor)
  uint32_t return_lane;      // a lane that multiplies at another call site, then returns (32: none)
};

template <class T>
void matrix_body(const BoundArgs& args, const LaneCursor& lane) {
  const uint32_t t = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t n = lane.value(Builtin::threads_per_threadgroup).x;
  const uint32_t sg = lane.value(Builtin::simdgroup_index_in_threadgroup).x;
  const uint32_t l = lane.value(Builtin::thread_index_in_simdgroup).x;
  const T* A = buffer<const T>(args, 0);
  const T* B = buffer<const T>(args, 1);
  const T* C = buffer<const T>(args, 2);
  T* D = buffer<T>(args, 3) + sg * kBuf;
  T* elements = buffer<T>(args, 4) + (sg * 32 + l) * 2;
  const MatParams& p = *buffer<const MatParams>(args, 5);
  if (p.via_threadgroup) {
    T* tg = threadgroup<T>(args, 0);
    for (uint32_t i = t; i < kBuf; i += n) {
      tg[i] = A[i];
      tg[kBuf + i] = B[i];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    A = tg;
    B = tg + kBuf;
  }
  simdgroup_matrix<T, 8, 8> a, b, d;
  simdgroup_load(a, A, p.a.ld, ulong2(p.a.x, p.a.y), p.a.transpose != 0);
  simdgroup_load(b, B, p.b.ld, ulong2(p.b.x, p.b.y), p.b.transpose != 0);
  elements[0] = a.thread_elements()[0];
  elements[1] = a.thread_elements()[1];
  if (l == p.return_lane) {
    simdgroup_multiply(d, b, a);
    return;
  }
  if (p.accumulate) {
    simdgroup_matrix<T, 8, 8> c = make_filled_simdgroup_matrix<T, 8, 8>(T(0));
    simdgroup_load(c, C, p.c.ld, ulong2(p.c.x, p.c.y), p.c.transpose != 0);
    simdgroup_multiply_accumulate(c, a, b, c);  // the destination aliases an operand
    d = c;
  } else {
    simdgroup_multiply(d, a, b);
  }
  if (p.scale_diagonal) {
    const simdgroup_matrix<T, 8, 8> two(T(2));
    simdgroup_multiply(d, d, two);
  }
  simdgroup_store(d, D, p.d.ld, ulong2(p.d.x, p.d.y), p.d.transpose != 0);
}

#define MATRIX_KERNEL(T, name)                                                     \
  HandKernel kernel_##name(                                                        \
      #name,                                                                       \
      {device_arg("A", 0, sizeof(T), true), device_arg("B", 1, sizeof(T), true),   \
       device_arg("C", 2, sizeof(T), true), device_arg("D", 3, sizeof(T)),         \
       device_arg("E", 4, sizeof(T)), device_arg("p", 5, sizeof(MatParams), true), \
       threadgroup_arg("tg", 0, sizeof(T))},                                       \
      &lane_loop<matrix_body<T>>);
MATRIX_KERNEL(float, sgm_float)
MATRIX_KERNEL(half, sgm_half)

// Apple's layout (docs/simdgroup.md): lane l holds row (q & 4) + (l / 2) % 4, columns
// (q & 2) * 2 + (l % 2) * 2 and the next, q = l / 4. Written here as the quad picture of the
// sources: quads 0,1 / 4,5 cover the left half, 2,3 / 6,7 the right half.
void lane_coord(uint32_t l, uint32_t& row, uint32_t& col) {
  const uint32_t quad = l / 4, in_quad = l % 4;
  row = (quad >= 4 ? 4 : 0) + (quad % 2) * 2 + in_quad / 2;
  col = ((quad / 2) % 2) * 4 + (in_quad % 2) * 2;
}

Mat read(const std::vector<float>& src, const Place& p) {
  Mat m;
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t c = 0; c < 8; ++c)
      m(r, c) = p.transpose ? src[(p.y + c) * p.ld + p.x + r] : src[(p.y + r) * p.ld + p.x + c];
  return m;
}
size_t at(const Place& p, uint32_t r, uint32_t c) {
  return p.transpose ? (p.y + c) * p.ld + p.x + r : (p.y + r) * p.ld + p.x + c;
}

Place random_place(std::mt19937& rng, bool allow_transpose) {
  static const uint32_t lds[] = {8, 9, 11, 16};
  Place p{};
  p.ld = lds[rng() % 4];
  p.x = rng() % (p.ld - 8 + 1);
  p.y = rng() % 9;
  p.transpose = allow_transpose ? rng() % 2 : 0;
  return p;
}

template <class T>
void run_cases(const char* kernel, const char* schedule, uint32_t threads, float tolerance) {
  Harness h;
  ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
  std::mt19937 rng(99 + threads);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  const uint32_t sgs = (threads + 31) / 32;
  for (int round = 0; round < 24; ++round) {
    MatParams p{};
    p.a = random_place(rng, true);
    p.b = random_place(rng, true);
    p.c = random_place(rng, true);
    p.d = random_place(rng, true);
    p.accumulate = round % 2;
    p.via_threadgroup = (round / 2) % 2;
    p.scale_diagonal = round % 5 == 0;
    p.return_lane = 32;
    if (round == 0)
      p = MatParams{{8, 0, 0, 0}, {8, 0, 0, 0}, {8, 0, 0, 0}, {8, 0, 0, 0}, 0, 0, 0, 32};
    // Sources rounded to T, kept as float for Eigen.
    std::vector<float> fa(kBuf), fb(kBuf), fc(kBuf);
    std::vector<T> ta(kBuf), tb(kBuf), tc(kBuf);
    for (uint32_t i = 0; i < kBuf; ++i) {
      ta[i] = T(u(rng)), tb[i] = T(u(rng)), tc[i] = T(u(rng));
      fa[i] = float(ta[i]), fb[i] = float(tb[i]), fc[i] = float(tc[i]);
    }
    const T poison = T(-777.0f);
    auto A = h.buffer(ta), B = h.buffer(tb), C = h.buffer(tc);
    auto D = h.buffer(std::vector<T>(size_t(kBuf) * sgs, poison));
    auto E = h.buffer(std::vector<T>(size_t(sgs) * 64, poison));
    auto P = h.buffer(std::vector<MatParams>{p});
    auto* cb = h.run(kernel,
                     [&](auto* e) {
                       e->setBuffer(A.get(), 0, 0);
                       e->setBuffer(B.get(), 0, 1);
                       e->setBuffer(C.get(), 0, 2);
                       e->setBuffer(D.get(), 0, 3);
                       e->setBuffer(E.get(), 0, 4);
                       e->setBuffer(P.get(), 0, 5);
                       e->setThreadgroupMemoryLength(2 * kBuf * sizeof(T), 0);
                     },
                     {1, 1, 1}, {threads, 1, 1});
    ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
    ASSERT_EQ(Harness::reports(cb), "");
    const T* got = static_cast<const T*>(D->contents());
    const T* elements = static_cast<const T*>(E->contents());
    for (uint32_t sg = 0; sg < sgs; ++sg) {
      const uint32_t live = std::min(32u, threads - sg * 32);
      // Elements of lanes that do not exist read as 0 and are not stored.
      Eigen::Matrix<bool, 8, 8, Eigen::RowMajor> present;
      present.setConstant(false);
      for (uint32_t l = 0; l < live; ++l) {
        uint32_t r, c;
        lane_coord(l, r, c);
        present(r, c) = present(r, c + 1) = true;
      }
      auto masked = [&](Mat m) {
        for (int r = 0; r < 8; ++r)
          for (int c = 0; c < 8; ++c)
            if (!present(r, c)) m(r, c) = 0.f;
        return m;
      };
      const Mat a = read(fa, p.a), b = read(fb, p.b);
      Mat want = masked(a) * masked(b);
      if (p.accumulate) want += masked(read(fc, p.c));
      if (p.scale_diagonal) want *= 2.f;
      // thread_elements() of a: the layout.
      for (uint32_t l = 0; l < live; ++l) {
        uint32_t r, c;
        lane_coord(l, r, c);
        ASSERT_EQ(float(elements[(sg * 32 + l) * 2]), a(r, c)) << "lane " << l;
        ASSERT_EQ(float(elements[(sg * 32 + l) * 2 + 1]), a(r, c + 1)) << "lane " << l;
      }
      const T* out = got + sg * kBuf;
      std::vector<bool> written(kBuf, false);
      for (uint32_t r = 0; r < 8; ++r)
        for (uint32_t c = 0; c < 8; ++c) {
          if (!present(r, c)) continue;
          const size_t k = at(p.d, r, c);
          written[k] = true;
          const float w = want(r, c), g = float(out[k]);
          ASSERT_NEAR(g, w, tolerance * (1.f + std::abs(w)))
              << kernel << " round " << round << " simdgroup " << sg << " element (" << r << ","
              << c << ")";
        }
      for (uint32_t k = 0; k < kBuf; ++k) {
        if (!written[k]) {
          ASSERT_EQ(float(out[k]), float(poison)) << "stored outside the block at " << k;
        }
      }
    }
  }
}

class SimdgroupMatrixTest : public ::testing::TestWithParam<std::tuple<uint32_t, const char*>> {};

TEST_P(SimdgroupMatrixTest, FloatMatchesEigen) {
  auto [threads, schedule] = GetParam();
  run_cases<float>("sgm_float", schedule, threads, 1e-5f);
}

TEST_P(SimdgroupMatrixTest, HalfMatchesEigen) {
  auto [threads, schedule] = GetParam();
  // Products accumulate in float and round to half once: within one half ulp of the float result.
  run_cases<half>("sgm_half", schedule, threads, 1e-3f);
}

INSTANTIATE_TEST_SUITE_P(Shapes, SimdgroupMatrixTest,
                         ::testing::Combine(::testing::Values(64u, 32u, 40u),
                                            ::testing::Values("in-order", "reversed", "random:3")));

TEST(SimdgroupMatrix, LayoutMatchesTheDocumentedFormula) {
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t r, c;
    lane_coord(l, r, c);
    const auto p = metal::detail::sgm::coord(l);
    EXPECT_EQ(p.row, r) << l;
    EXPECT_EQ(p.col, c) << l;
  }
  static_assert(sizeof(simdgroup_float8x8) == 8 && sizeof(simdgroup_half8x8) == 4);
}

TEST(SimdgroupMatrix, ALaneMissingFromAMultiplyIsReported) {
  Harness h;
  MatParams p{{8, 0, 0, 0}, {8, 0, 0, 0}, {8, 0, 0, 0}, {8, 0, 0, 0}, 0, 0, 0, 5};
  std::vector<float> ones(kBuf, 1.0f);
  auto A = h.buffer(ones), D = h.buffer(std::vector<float>(kBuf, 0.f)),
       E = h.buffer(std::vector<float>(64, 0.f));
  auto P = h.buffer(std::vector<MatParams>{p});
  auto* cb = h.run("sgm_float",
                   [&](auto* e) {
                     e->setBuffer(A.get(), 0, 0);
                     e->setBuffer(A.get(), 0, 1);
                     e->setBuffer(A.get(), 0, 2);
                     e->setBuffer(D.get(), 0, 3);
                     e->setBuffer(E.get(), 0, 4);
                     e->setBuffer(P.get(), 0, 5);
                     e->setThreadgroupMemoryLength(2 * kBuf * 4, 0);
                   },
                   {1, 1, 1}, {32, 1, 1});
  // The lane blocked at another multiply makes both calls partial: both are reported.
  const std::string reports = Harness::reports(cb);
  EXPECT_NE(reports.find("simdgroup_matrix operation reached by 31 of 32"), std::string::npos)
      << reports;
  EXPECT_NE(reports.find("simdgroup_matrix operation reached by 1 of 32"), std::string::npos)
      << reports;
}

}  // namespace
}  // namespace metalsim::testing
