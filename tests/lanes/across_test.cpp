// Loops across lanes (simt/lanes/across_lanes.h): the kernels of kernels/strided_kernels.cpp, on
// row lengths below, at and above the threadgroup's size and not multiples of it (lanes with one
// iteration more than others, lanes with none), give in lane loops exactly what a scalar
// reference computes lane by lane in the kernel's order, and the same bytes as on fibers. The
// pass's summary says which loops it ran across lanes, and the rounds' lane loops are vector code.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lanes/mode_runner.h"
#include "lanes/shapes.h"

namespace metalsim::lanes_test {
namespace {

// What a lane knows of itself (as kernel_abi.h's Lane): its index, its threadgroup's size and
// index, and its slot in per-lane outputs.
struct LaneId {
  uint32_t tid, threads, group;
  uint64_t slot;
};

// The reference: the kernel's per-lane outputs (`per_lane` floats each) and its row outputs.
struct Expected {
  std::vector<float> per_lane;
  std::vector<float> rows;
};

struct Kernel {
  const char* name;
  uint32_t per_lane;  // floats per lane in buffer(2) (or buffer(3) when `rows`)
  bool rows;          // writes a row of n floats per threadgroup in buffer(2)
  bool threadgroup_memory;
  std::function<void(const std::vector<float>& x, uint32_t n, const LaneId& l, Expected& e)> lane;
};

float max_of(float a, float b) { return a > b ? a : b; }

// The indices a lane visits in `for (i = first; i < limit; i += stride)`, in its order: first +
// k * stride for k = 0, 1, ... (in 64 bits: no wrap to stand in for).
std::vector<uint64_t> visits(uint64_t first, uint64_t stride, uint64_t limit) {
  std::vector<uint64_t> v;
  for (uint64_t k = 0; first + k * stride < limit; ++k) v.push_back(first + k * stride);
  return v;
}

// The reference of the kernels' double_then_square (strided_kernels.cpp), called lane by lane in
// lane order: lane 0 stands for the first loop (every lane that writes an element writes the
// same value), then each lane updates its elements in turn, as fibers run a racing stride.
void double_then_square(const std::vector<float>& x, uint32_t n, const LaneId& l, Expected& e,
                        uint32_t stride) {
  const float* row = x.data() + uint64_t(l.group) * n;
  float* out = e.rows.data() + uint64_t(l.group) * n;
  if (l.tid == 0)
    for (uint32_t i = 0; i < n; ++i) out[i] = row[i] * 2.0f;
  for (uint64_t i : visits(l.tid, stride, n)) out[i] = out[i] * out[i] + float(l.tid);
  e.per_lane[l.slot] = float(l.tid);
}

std::vector<Kernel> kernels() {
  using X = const std::vector<float>&;
  std::vector<Kernel> k;
  k.push_back({"strided_sum", 1, false, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
                 const float* row = x.data() + uint64_t(l.group) * n;
                 float acc = 0.0f;
                 for (uint64_t i : visits(l.tid, l.threads, n)) acc += row[i] * row[i];
                 e.per_lane[l.slot] = acc;
               }});
  k.push_back(
      {"strided_sum_racing", 1, false, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         const float* row = x.data() + uint64_t(l.group) * n;
         float acc = 0.0f;
         for (uint64_t i : visits(l.tid, l.threads, n)) acc += row[i];
         e.per_lane[l.slot] = acc;
         e.per_lane[l.slot - l.tid] = acc;  // called in lane order: the last lane's wins
       }});
  k.push_back(
      {"strided_normalize", 1, true, true, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         const float* row = x.data() + uint64_t(l.group) * n;
         // Every lane's partial results, in lane order, as the kernel's shared array.
         std::vector<float> maxima(l.threads, -1e30f), sums(l.threads, 0.0f);
         for (uint32_t t = 0; t < l.threads; ++t)
           for (uint64_t i : visits(t, l.threads, n)) maxima[t] = max_of(maxima[t], row[i]);
         float m = maxima[0];
         for (uint32_t j = 1; j < l.threads; ++j) m = max_of(m, maxima[j]);
         for (uint32_t t = 0; t < l.threads; ++t)
           for (uint64_t i : visits(t, l.threads, n)) sums[t] += (row[i] - m) * (row[i] - m);
         float s = 0.0f;
         for (float partial : sums) s += partial;
         s += 1.0f;
         for (uint64_t i : visits(l.tid, l.threads, n))
           e.rows[uint64_t(l.group) * n + i] = (row[i] - m) / s;
         e.per_lane[l.slot] = sums[l.tid];
       }});
  k.push_back({"strided_break", 1, false, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
                 const float* row = x.data() + uint64_t(l.group) * n;
                 float acc = 0.0f;
                 const std::vector<uint64_t> mine = visits(l.tid, l.threads, n);
                 for (size_t j = 0; j < mine.size() && row[mine[j]] <= 1.5f; ++j)
                   acc += row[mine[j]];
                 e.per_lane[l.slot] = acc;
               }});
  k.push_back(
      {"strided_two_exits", 1, false, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         const float* row = x.data() + uint64_t(l.group) * n;
         float acc = 0.0f;
         for (uint64_t round = 0; round < n / 16 + 1 && l.tid + l.threads * round < n; ++round)
           acc += row[l.tid + l.threads * round] * float(round + 1);
         e.per_lane[l.slot] = acc;
       }});
  k.push_back(
      {"strided_with_barrier", 1, false, true, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         const float* row = x.data() + uint64_t(l.group) * n;
         float acc = 0.0f;
         // Round `base` reads what lane tid + 1 (wrapping) put in shared memory.
         for (uint64_t base : visits(0, l.threads, n)) {
           const uint64_t i = base + (l.tid + 1) % l.threads;
           acc += i < n ? row[i] : 0.0f;
         }
         e.per_lane[l.slot] = acc;
       }});
  k.push_back(
      {"strided_nested", 2, false, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         const float* row = x.data() + uint64_t(l.group) * n;
         float acc = 0.0f;
         for (uint64_t b : visits(l.tid, l.threads, n / 7)) {
           float block = 0.0f;
           for (uint64_t j = 0; j < 7; ++j) block += row[b * 7 + j] * float(j + 1);
           acc += block;
         }
         float tail = 0.0f;
         for (uint64_t first : {0, 1, 2})
           for (uint64_t i : visits(l.tid + first, l.threads, n)) tail += row[i];
         e.per_lane[l.slot * 2] = acc;
         e.per_lane[l.slot * 2 + 1] = tail;
       }});
  k.push_back(
      {"strided_in_outer_loop", 1, false, true, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         const float* row = x.data() + uint64_t(l.group) * n;
         // Every lane's accumulator, pass by pass, as the barriers exchange them.
         std::vector<float> acc(l.threads, 0.0f);
         for (uint32_t pass = 0; pass < n % 3 + 2; ++pass) {
           for (uint32_t t = 0; t < l.threads; ++t) {
             float part = 0.0f;
             for (uint64_t i : visits(t + pass, l.threads, n)) part += row[i] * float(pass + 1);
             acc[t] = acc[t] * 0.5f + part;
           }
           if (pass % 2 == 1) {
             const std::vector<float> shared = acc;
             for (uint32_t t = 0; t < l.threads; ++t) acc[t] += shared[(t + 1) % l.threads];
           }
         }
         e.per_lane[l.slot] = acc[l.tid];
       }});
  k.push_back(
      {"uniform_and_down", 1, false, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         const float* row = x.data() + uint64_t(l.group) * n;
         float acc = 0.0f;
         for (uint64_t j : visits(0, 1, n)) acc += row[j] * float(l.tid + 1);
         // Counting down from n - 1 - tid: the same visits, mirrored.
         for (uint64_t i : visits(l.tid, l.threads, n)) acc = acc * 0.5f + row[n - 1 - i];
         e.per_lane[l.slot] = acc;
       }});
  k.push_back(
      {"strided_in_place", 1, true, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
         double_then_square(x, n, l, e, l.threads);
       }});
  k.push_back({"strided_pairs", 1, true, false, [](X x, uint32_t n, const LaneId& l, Expected& e) {
                 const float* row = x.data() + uint64_t(l.group) * n;
                 float* out = e.rows.data() + uint64_t(l.group) * n;
                 for (uint64_t i : visits(l.tid, l.threads, n / 2)) {
                   out[2 * i] = row[2 * i] + row[2 * i + 1];
                   out[2 * i + 1] = row[2 * i] - row[2 * i + 1];
                 }
                 if (l.tid == 0 && n % 2 == 1) out[n - 1] = row[n - 1];
                 e.per_lane[l.slot] = float(l.tid);
               }});
  k.push_back({"strided_half_stride_racing", 1, true, false,
               [](X x, uint32_t n, const LaneId& l, Expected& e) {
                 double_then_square(x, n, l, e, l.threads / 2 > 0 ? l.threads / 2 : 1);
               }});
  return k;
}

// Row lengths: none, fewer than a simdgroup, around the threadgroup sizes of test_shapes(), and
// longer rows that are multiples of no size there.
const std::vector<uint32_t> kLengths = {0, 1, 7, 31, 100, 255, 256, 257, 1000, 4097};

float bits_of(const std::vector<std::byte>& b, uint64_t i) {
  float f;
  std::memcpy(&f, &b[i * 4], 4);
  return f;
}

void expect_same_bits(const char* what, const Bytes& actual, const std::vector<float>& expected,
                      uint64_t i, const std::string& where) {
  const float a = bits_of(actual, i);
  ASSERT_EQ(0, std::memcmp(&a, &expected[i], 4))
      << what << " element " << i << ": " << a << ", the reference " << expected[i] << " (" << where
      << ")";
}

class AcrossLanes : public ::testing::TestWithParam<std::tuple<size_t, size_t>> {};

TEST_P(AcrossLanes, LaneLoopsMatchTheReferenceAndFibersBitForBit) {
  const auto [kernel_index, shape_index] = GetParam();
  const Kernel k = kernels()[kernel_index];
  const Shape s = test_shapes()[shape_index];
  for (uint32_t n : kLengths) {
    const std::string where = std::string(k.name) + " on " + s.name + ", n = " + std::to_string(n);
    std::mt19937 rng(uint32_t(77 + kernel_index * 131 + shape_index * 17 + n));
    std::uniform_real_distribution<float> d(-2.0f, 2.0f);
    std::vector<float> x(s.groups() * n + 1);
    for (float& v : x) v = d(rng);
    Launch l;
    l.kernel = k.name;
    l.geometry = s.geometry;
    const uint64_t lane_floats = s.slots() * k.per_lane;
    const uint64_t row_floats = k.rows ? s.groups() * n : 0;
    l.buffers = {
        bytes_of(x), bytes_of(std::vector<uint32_t>{n}),
        Bytes(std::max<uint64_t>(k.rows ? row_floats : lane_floats, 1) * 4, std::byte{0xFF})};
    if (k.rows) l.buffers.push_back(Bytes(lane_floats * 4, std::byte{0xFF}));
    if (k.threadgroup_memory) l.threadgroup_lengths = {s.stride() * 4};

    Expected e{std::vector<float>(lane_floats), std::vector<float>(row_floats)};
    for (uint64_t g = 0; g < s.groups(); ++g)
      for (uint32_t t = 0; t < s.threads_in(g); ++t)
        k.lane(x, n, {t, s.threads_in(g), uint32_t(g), g * s.stride() + t}, e);

    const Outcome fibers = run_on_fibers(l);
    const Outcome loops = run_in_lane_loops(l);
    ASSERT_TRUE(fibers.reports.empty()) << where << ": " << fibers.reports[0].format();
    ASSERT_TRUE(loops.reports.empty()) << where << ": " << loops.reports[0].format();
    for (size_t b = 2; b < l.buffers.size(); ++b)
      ASSERT_EQ(fibers.buffers[b], loops.buffers[b])
          << where << ": buffer(" << b << ") differs between fibers and lane loops";
    const Bytes& per_lane = loops.buffers[k.rows ? 3 : 2];
    for (uint64_t slot = 0; slot < s.slots(); ++slot) {
      if (!s.lane_exists(slot)) continue;
      for (uint32_t j = 0; j < k.per_lane; ++j)
        expect_same_bits("per-lane output", per_lane, e.per_lane, slot * k.per_lane + j, where);
    }
    for (uint64_t i = 0; i < row_floats; ++i)
      expect_same_bits("row output", loops.buffers[2], e.rows, i, where);
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<size_t, size_t>>& info) {
  const auto [k, s] = info.param;
  return std::string(kernels()[k].name) + "_" + test_shapes()[s].name;
}

INSTANTIATE_TEST_SUITE_P(Kernels, AcrossLanes,
                         ::testing::Combine(::testing::Range<size_t>(0, kernels().size()),
                                            ::testing::Range<size_t>(0, test_shapes().size())),
                         case_name);

// ------------------------------ what the pass made of them

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The summary lines of kernel `name`'s body.
std::string summary_of(const std::string& name) {
  std::istringstream in(read_file(std::string(LANES_OUT_DIR) + "/strided_kernels.summary.txt"));
  std::string text;
  bool mine = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("body ", 0) == 0) mine = line.find("::" + name + "(") != std::string::npos;
    else if (mine) text += line + "\n";
  }
  EXPECT_FALSE(text.empty()) << "no body for " << name;
  return text;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(AcrossLanesStructure, StridedAndUniformLoopsRunAcrossLanes) {
  EXPECT_EQ(count_of(summary_of("strided_sum"), "across lanes: loop at "), 1u)
      << summary_of("strided_sum");
  // softmax's shape: the two strided loops that only read, the two loops over the threadgroup's
  // partials, and the strided loop that stores to the row, its stores tested apart at run time.
  EXPECT_EQ(count_of(summary_of("strided_normalize"), "across lanes: loop at "), 5u)
      << summary_of("strided_normalize");
  EXPECT_EQ(count_of(summary_of("strided_normalize"), "stores tested apart at run time"), 1u)
      << summary_of("strided_normalize");
  // Strided stores: in place, two elements an iteration, and with a stride that races.
  for (const char* name : {"strided_in_place", "strided_half_stride_racing"})
    EXPECT_EQ(count_of(summary_of(name), "stores tested apart at run time"), 2u)
        << summary_of(name);
  EXPECT_EQ(count_of(summary_of("strided_pairs"), "stores tested apart at run time"), 1u)
      << summary_of("strided_pairs");
  EXPECT_EQ(count_of(summary_of("uniform_and_down"), "across lanes: loop at "), 2u)
      << summary_of("uniform_and_down");
  // Two exits, one counted by ScalarEvolution and one from its test.
  EXPECT_EQ(count_of(summary_of("strided_two_exits"), "across lanes: loop at "), 1u)
      << summary_of("strided_two_exits");
  // An inner loop whose outer loop meets a barrier.
  EXPECT_EQ(count_of(summary_of("strided_in_outer_loop"), "across lanes: loop at "), 1u)
      << summary_of("strided_in_outer_loop");
}

TEST(AcrossLanesStructure, ALoopWhoseRegionRacesStaysPerLane) {
  // The stores after the loop may meet another lane's: the summary says which, by line.
  const std::string racing = summary_of("strided_sum_racing");
  EXPECT_EQ(count_of(racing, "across lanes"), 0u) << racing;
  EXPECT_EQ(count_of(racing, "per lane: loop at "), 1u) << racing;
  EXPECT_NE(racing.find("may meet another lane's write at"), std::string::npos) << racing;
}

TEST(AcrossLanesStructure, LoopsWithABreakOrABarrierStayPerLane) {
  // A break on data: the trip count is unknown.
  EXPECT_EQ(count_of(summary_of("strided_break"), "across lanes"), 0u)
      << summary_of("strided_break");
  // A barrier inside: a sync point in the loop.
  const std::string barrier = summary_of("strided_with_barrier");
  EXPECT_EQ(count_of(barrier, "across lanes"), 0u) << barrier;
  EXPECT_EQ(count_of(barrier, " yield at "), 0u) << barrier;
}

// The step's text in strided_kernels.ll (the optimised IR).
std::string step_of(const std::string& name) {
  std::istringstream in(read_file(std::string(LANES_OUT_DIR) + "/strided_kernels.ll"));
  std::string text;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside && line.rfind("define ", 0) == 0 && line.find(name) != std::string::npos &&
        line.find(".lanes.step(") != std::string::npos)
      inside = true;
    if (inside) text += line + "\n";
    if (inside && line == "}") break;
  }
  EXPECT_FALSE(text.empty()) << "no step for " << name;
  return text;
}

// Whether a line of `text` has `op` (e.g. "= fmul <") on vectors of floats.
bool has_vector_float(const std::string& text, const std::string& op) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (const size_t at = line.find(op);
        at != std::string::npos && line.find(" x float>", at) != std::string::npos)
      return true;
  return false;
}

TEST(AcrossLanesStructure, TheRoundsAreVectorCode) {
  // A round of strided_sum: the lanes' accumulators and x[tid + done * threads] as vectors.
  for (const char* name : {"strided_sum", "strided_normalize"}) {
    const std::string step = step_of(name);
    EXPECT_TRUE(has_vector_float(step, "= fmul <")) << name << "\n" << step;
    EXPECT_TRUE(has_vector_float(step, "= load <")) << name << "\n" << step;
  }
  // A round of a loop that stores: out[tid + done * threads] as a vector store.
  const std::string in_place = step_of("strided_in_place");
  EXPECT_TRUE(has_vector_float(in_place, "store <")) << in_place;
}

}  // namespace
}  // namespace metalsim::lanes_test
