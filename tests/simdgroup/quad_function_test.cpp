// quad_* functions (simt/include/metal_simdgroup): the same model as the simd_* test with groups
// of four lanes.
#include "simdgroup/simd_model.h"

namespace metalsim::testing {
namespace {

using namespace simd_model;

#define QUAD_KERNEL(T, name)                                                                    \
  HandKernel kernel_##name(#name,                                                               \
                           {device_arg("x", 0, sizeof(T), true), device_arg("f", 1, sizeof(T), true), \
                            device_arg("out", 2, sizeof(T)),                                    \
                            device_arg("p", 3, sizeof(Params), true)},                          \
                           &lane_loop<ops_body<4, T>>);
QUAD_KERNEL(float, quad_ops_float)
QUAD_KERNEL(metal::half, quad_ops_half)
QUAD_KERNEL(int, quad_ops_int)
QUAD_KERNEL(metal::uint, quad_ops_uint)
QUAD_KERNEL(metal::float2, quad_ops_float2)

struct Shape {
  uint32_t threads, groups;
};

class QuadFunctionTest : public ::testing::TestWithParam<std::tuple<Shape, const char*>> {};

TEST_P(QuadFunctionTest, Float) {
  auto [s, sched] = GetParam();
  check_all_ops<4, float>("quad_ops_float", s.threads, s.groups, sched);
}
TEST_P(QuadFunctionTest, Half) {
  auto [s, sched] = GetParam();
  check_all_ops<4, metal::half>("quad_ops_half", s.threads, s.groups, sched);
}
TEST_P(QuadFunctionTest, Int) {
  auto [s, sched] = GetParam();
  check_all_ops<4, int>("quad_ops_int", s.threads, s.groups, sched);
}
TEST_P(QuadFunctionTest, UintAndVotes) {
  auto [s, sched] = GetParam();
  check_all_ops<4, metal::uint>("quad_ops_uint", s.threads, s.groups, sched);
}
TEST_P(QuadFunctionTest, Float2) {
  auto [s, sched] = GetParam();
  check_all_ops<4, metal::float2>("quad_ops_float2", s.threads, s.groups, sched);
}

INSTANTIATE_TEST_SUITE_P(Shapes, QuadFunctionTest,
                         ::testing::Combine(::testing::Values(Shape{70, 2}, Shape{32, 1},
                                                              Shape{6, 1}, Shape{43, 1}),
                                            ::testing::Values("in-order", "reversed", "random:5")));

}  // namespace
}  // namespace metalsim::testing
