// Every test kernel, run in lane loops and on fibers on the same seeded random inputs, gives
// bit-identical outputs, and writes every output element (outputs start poisoned). Shapes cover
// full, partial and single-lane simdgroups, 2-D threadgroups and partial edge threadgroups.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "lanes/mode_runner.h"
#include "lanes/shapes.h"

namespace metalsim::lanes_test {
namespace {

using half = _Float16;

// An output buffer: its index, bytes per lane slot (or per threadgroup), element size.
struct Output {
  uint32_t buffer;
  bool per_group;     // one element block per threadgroup rather than per lane
  uint32_t elements;  // elements per slot
  uint32_t element_size;
};

struct Case {
  std::string label;  // the kernel, and the variant when there are several
  std::function<Launch(const Shape&, std::mt19937&)> launch;
  std::vector<Output> outputs;
  bool needs_power_of_two = false;
};

template <class T>
std::vector<T> uniform(size_t n, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = T(d(rng));
  return v;
}
Bytes poison(size_t bytes) { return Bytes(bytes, std::byte{0xFF}); }
uint32_t round16(uint64_t bytes) { return uint32_t((bytes + 15) / 16 * 16); }
template <class T>
Bytes one(T value) {
  return bytes_of(std::vector<T>{value});
}

Launch base(const char* kernel, const Shape& s) {
  Launch l;
  l.kernel = kernel;
  l.geometry = s.geometry;
  return l;
}

// One float in per lane, `per_lane` floats out per lane, threadgroup(0) of `tg_bytes_per_lane`.
Launch in_out(const char* kernel, const Shape& s, std::mt19937& rng, uint32_t per_lane,
              uint32_t tg_bytes_per_lane) {
  Launch l = base(kernel, s);
  l.buffers = {bytes_of(uniform<float>(s.slots(), rng, -2.0f, 2.0f)),
               poison(s.slots() * per_lane * 4)};
  if (tg_bytes_per_lane != 0)
    l.threadgroup_lengths = {round16(uint64_t(s.stride()) * tg_bytes_per_lane)};
  return l;
}

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"rotate",
               [](const Shape& s, std::mt19937& r) { return in_out("rotate", s, r, 2, 4); },
               {{1, false, 2, 4}}});
  for (const char* name : {"barrier_in_loop", "barrier_in_loop_constant"})
    c.push_back({name,
                 [name](const Shape& s, std::mt19937& r) {
                   Launch l = in_out(name, s, r, 1, 4);
                   l.buffers.push_back(one<uint32_t>(5));
                   return l;
                 },
                 {{1, false, 1, 4}}});
  for (int mode : {0, 1})
    c.push_back({"uniform_branch_mode" + std::to_string(mode),
                 [mode](const Shape& s, std::mt19937& r) {
                   Launch l = in_out("uniform_branch", s, r, 1, 4);
                   if (mode == 1) l.function_constants = {one<int32_t>(1)};
                   return l;
                 },
                 {{1, false, 1, 4}}});
  c.push_back({"tree_reduce",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = in_out("tree_reduce", s, r, 0, 4);
                 l.buffers[1] = poison(s.groups() * 4);
                 return l;
               },
               {{1, true, 1, 4}},
               true});
  c.push_back({"tree_reduce_static",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = in_out("tree_reduce_static", s, r, 0, 0);
                 l.buffers[1] = poison(s.groups() * 4);
                 return l;
               },
               {{1, true, 1, 4}},
               true});
  c.push_back({"simd_functions",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = in_out("simd_functions", s, r, 4, 0);
                 l.buffers.push_back(poison(s.slots() * 8));
                 l.buffers.push_back(poison(s.groups() * 4));
                 l.threadgroup_lengths = {32 * 4};
                 return l;
               },
               {{1, false, 4, 4}, {2, false, 1, 8}, {3, true, 1, 4}}});
  c.push_back(
      {"simd_shuffle_loop",
       [](const Shape& s, std::mt19937& r) { return in_out("simd_shuffle_loop", s, r, 1, 0); },
       {{1, false, 1, 4}}});
  c.push_back({"simd_active_mask",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = in_out("simd_active_mask", s, r, 3, 0);
                 l.buffers.push_back(poison(s.slots() * 8));
                 return l;
               },
               {{1, false, 3, 4}, {2, false, 1, 8}}});
  c.push_back(
      {"simd_after_return",
       [](const Shape& s, std::mt19937& r) { return in_out("simd_after_return", s, r, 1, 0); },
       {{1, false, 1, 4}}});
  c.push_back({"half_math",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = base("half_math", s);
                 l.buffers = {bytes_of(uniform<half>(s.slots(), r, -2.0f, 2.0f)),
                              poison(s.slots() * 2 * 2)};
                 l.threadgroup_lengths = {round16(uint64_t(s.stride()) * 2)};
                 return l;
               },
               {{1, false, 2, 2}}});
  c.push_back({"atomic_histogram",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = in_out("atomic_histogram", s, r, 1, 0);
                 l.threadgroup_lengths = {16 * 4};
                 return l;
               },
               {{1, false, 1, 4}}});
  c.push_back({"scale",
               [](const Shape& s, std::mt19937& r) { return in_out("scale", s, r, 1, 0); },
               {{1, false, 1, 4}}});
  // Guards: outputs start random, not poisoned (the lanes a guard returns write nothing).
  // limit < lanes: the last threadgroups mix lanes that pass and lanes that return.
  c.push_back({"guarded_scale",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = in_out("guarded_scale", s, r, 1, 0);
                 l.buffers[1] = bytes_of(uniform<float>(s.slots(), r, 5.0f, 6.0f));
                 l.buffers.push_back(one<uint32_t>(uint32_t(s.slots() - s.slots() / 3)));
                 return l;
               },
               {{1, false, 1, 4}}});
  for (float threshold : {-3.0f, -1.5f})  // no lane returns; some do
    c.push_back({"guarded_by_data" + std::to_string(int(-threshold * 10)),
                 [threshold](const Shape& s, std::mt19937& r) {
                   Launch l = in_out("guarded_by_data", s, r, 1, 0);
                   l.buffers[1] = bytes_of(uniform<float>(s.slots(), r, 5.0f, 6.0f));
                   l.buffers.push_back(one<float>(threshold));
                   return l;
                 },
                 {{1, false, 1, 4}}});
  c.push_back({"long_kernel",
               [](const Shape& s, std::mt19937& r) { return in_out("long_kernel", s, r, 1, 0); },
               {{1, false, 1, 4}}});
  c.push_back({"private_array",
               [](const Shape& s, std::mt19937& r) { return in_out("private_array", s, r, 1, 4); },
               {{1, false, 1, 4}}});
  c.push_back({"pointer_choice",
               [](const Shape& s, std::mt19937& r) { return in_out("pointer_choice", s, r, 2, 4); },
               {{1, false, 2, 4}}});
  c.push_back(
      {"cleanup_across_barrier",
       [](const Shape& s, std::mt19937& r) { return in_out("cleanup_across_barrier", s, r, 1, 4); },
       {{1, false, 1, 4}}});
  for (auto [kernel, per_lane] : {std::pair{"local_rows", 4u}, std::pair{"local_rows_picked", 8u},
                                  std::pair{"local_rows_nested", 4u}})
    c.push_back({kernel,
                 [kernel, per_lane](const Shape& s, std::mt19937& r) {
                   Launch l = in_out(kernel, s, r, per_lane, 4);
                   l.buffers.push_back(one<uint32_t>(7));
                   l.buffers.push_back(one<uint32_t>(3));  // local_rows_nested's m
                   return l;
                 },
                 {{1, false, per_lane, 4}}});
  c.push_back({"axpy_exchange",
               [](const Shape& s, std::mt19937& r) {
                 Launch l = in_out("axpy_exchange", s, r, 0, 4);
                 l.buffers = {bytes_of(uniform<float>(s.slots(), r, -2.0f, 2.0f)),
                              bytes_of(uniform<float>(s.slots(), r, -2.0f, 2.0f)),
                              poison(s.slots() * 4)};
                 return l;
               },
               {{2, false, 1, 4}}});
  return c;
}

bool is_poison_or_nan(const std::byte* e, uint32_t size) {
  bool all_ff = true;
  for (uint32_t i = 0; i < size; ++i) all_ff = all_ff && e[i] == std::byte{0xFF};
  if (all_ff) return true;
  if (size == 4) {
    float f;
    std::memcpy(&f, e, 4);
    return std::isnan(f);
  }
  if (size == 2) {
    half h;
    std::memcpy(&h, e, 2);
    return h != h;
  }
  return false;
}

// Every element of a lane that exists (or of every threadgroup) was written, and is no NaN.
void expect_written(const Shape& s, const Output& o, const Bytes& b, const char* mode) {
  const uint64_t slots = o.per_group ? s.groups() : s.slots();
  for (uint64_t slot = 0; slot < slots; ++slot) {
    if (!o.per_group && !s.lane_exists(slot)) continue;
    for (uint32_t k = 0; k < o.elements; ++k) {
      const uint64_t e = slot * o.elements + k;
      ASSERT_FALSE(is_poison_or_nan(&b[e * o.element_size], o.element_size))
          << mode << ": buffer(" << o.buffer << ") element " << e << " (slot " << slot
          << ") not written or NaN";
    }
  }
}

void expect_identical(const Output& o, const Bytes& fibers, const Bytes& loops) {
  ASSERT_EQ(fibers.size(), loops.size());
  for (size_t e = 0; e * o.element_size < fibers.size(); ++e)
    ASSERT_EQ(0,
              std::memcmp(&fibers[e * o.element_size], &loops[e * o.element_size], o.element_size))
        << "buffer(" << o.buffer << ") element " << e << " differs between fibers and lane loops";
}

class Equivalence : public ::testing::TestWithParam<std::tuple<size_t, size_t>> {};

TEST_P(Equivalence, LaneLoopsAndFibersAreBitIdentical) {
  const auto [case_index, shape_index] = GetParam();
  const Case c = cases()[case_index];
  const Shape s = test_shapes()[shape_index];
  if (c.needs_power_of_two && !s.uniform_power_of_two())
    GTEST_SKIP() << "a halving tree needs 2^k threads";
  std::mt19937 rng(uint32_t(1234 + case_index * 97 + shape_index));
  const Launch launch = c.launch(s, rng);
  const Outcome fibers = run_on_fibers(launch);
  const Outcome loops = run_in_lane_loops(launch);
  ASSERT_TRUE(fibers.reports.empty()) << fibers.reports[0].format();
  ASSERT_TRUE(loops.reports.empty()) << loops.reports[0].format();
  for (const Output& o : c.outputs) {
    expect_written(s, o, fibers.buffers[o.buffer], "fibers");
    expect_written(s, o, loops.buffers[o.buffer], "lane loops");
    expect_identical(o, fibers.buffers[o.buffer], loops.buffers[o.buffer]);
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<size_t, size_t>>& info) {
  const auto [c, s] = info.param;
  return cases()[c].label + "_" + test_shapes()[s].name;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Equivalence,
                         ::testing::Combine(::testing::Range<size_t>(0, cases().size()),
                                            ::testing::Range<size_t>(0, test_shapes().size())),
                         case_name);

}  // namespace
}  // namespace metalsim::lanes_test
