// The hand-written lane loops of bench/ceiling_kernels.h. Read each beside its .metal kernel:
// the phases are the kernel's code between threadgroup barriers, in order; every per-lane value
// the kernel keeps in a register is an array over the threadgroup's (or simdgroup's) lanes here.
//
// Operation for operation means: each lane's arithmetic is the kernel's, in the kernel's order,
// rounded after every operation (the kernel flags' -ffp-contract=off), with the MSL `exp` of
// simt/include/detail/elementary.h, and simd_sum folds lanes in ascending order as the engine
// defines it (docs/simdgroup.md). A lane-loop pass that keeps lane loops and fibers bit-identical
// is held to the same, so what the ceiling does is what such a pass may do.
#include "bench/ceiling_kernels.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "detail/elementary.h"

namespace metalsim::ceiling {
namespace {

using metal::detail::elementary::exp;  // MSL exp in safe math, written to vectorize

constexpr float kInf = std::numeric_limits<float>::infinity();

// MSL max on floats is fmax (a NaN operand yields the other). Compare and select, so that a loop
// across lanes vectorizes (a call to fmaxf has no AVX2 form).
inline float fmax_lane(float a, float b) { return a < b || a != a ? b : a; }

// ------------------------------ softmax and rms_norm: one threadgroup per row

// The kernels' `for (i = tid; i < n; i += threads) body(tid, i)`, with the loop over lanes inside:
// every lane takes one element of each chunk of `threads` contiguous elements, so the inner loop
// runs across lanes over contiguous addresses; the last chunk masks off the lanes past n.
// Per lane the elements come in the kernel's order, so each lane's state evolves as on a GPU.
template <class Body>
[[gnu::always_inline]] inline void strided_lanes(uint32_t n, uint32_t threads, Body body) {
  uint32_t base = 0;
  for (; base + threads <= n; base += threads)
    for (uint32_t lane = 0; lane < threads; ++lane) body(lane, base + lane);
  for (uint32_t lane = 0; base + lane < n; ++lane) body(lane, base + lane);
}

// threadgroup_reduce (softmax.metal) and threadgroup_sum (elementwise.metal) over `lanes`, which
// plays threadgroup memory (`shared[tid] = value` is the array itself): fold the part above the
// largest power of two, then halve. Each level is one loop across the lanes it keeps; the
// kernel's barrier between levels is the loop's end.
template <class Op>
[[gnu::always_inline]] inline float tree_reduce(float* lanes, uint32_t n, Op op) {
  uint32_t p = 1;
  while (p * 2 <= n) p *= 2;
  for (uint32_t lane = 0; lane + p < n; ++lane) lanes[lane] = op(lanes[lane], lanes[lane + p]);
  for (uint32_t stride = p / 2; stride > 0; stride >>= 1)
    for (uint32_t lane = 0; lane < stride; ++lane)
      lanes[lane] = op(lanes[lane], lanes[lane + stride]);
  return lanes[0];
}

inline float plus(float a, float b) { return a + b; }

}  // namespace

void softmax_threadgroup(half_t* x, uint32_t rows, uint32_t cols, uint32_t threads, uint32_t tgid) {
  if (tgid >= rows) return;
  half_t* row = x + uint64_t(tgid) * cols;
  alignas(64) float lanes[kMaxThreads];  // local_max, then local_sum, of every lane

  std::fill(lanes, lanes + threads, -kInf);
  strided_lanes(cols, threads, [&](uint32_t lane, uint32_t i) {
    lanes[lane] = fmax_lane(lanes[lane], float(row[i]));
  });
  const float row_max = tree_reduce(lanes, threads, fmax_lane);

  std::fill(lanes, lanes + threads, 0.0f);
  if (row_max != -kInf)
    strided_lanes(cols, threads,
                  [&](uint32_t lane, uint32_t i) { lanes[lane] += exp(float(row[i]) - row_max); });
  const float row_sum = tree_reduce(lanes, threads, plus);

  // row_max is uniform: the kernel's per-element select is one branch for the whole threadgroup.
  const float inv_sum = row_max == -kInf ? 0.0f : 1.0f / row_sum;
  if (row_max == -kInf)
    strided_lanes(cols, threads, [&](uint32_t, uint32_t i) { row[i] = half_t(0); });
  else
    strided_lanes(cols, threads, [&](uint32_t, uint32_t i) {
      row[i] = half_t(exp(float(row[i]) - row_max) * inv_sum);
    });
}

void rms_norm_threadgroup(const half_t* input, const half_t* weight, half_t* output,
                          uint32_t hidden, float eps, float weight_offset, uint32_t threads,
                          uint32_t tgid) {
  const half_t* row_in = input + uint64_t(tgid) * hidden;
  half_t* row_out = output + uint64_t(tgid) * hidden;
  alignas(64) float lanes[kMaxThreads];  // local_sum of every lane

  std::fill(lanes, lanes + threads, 0.0f);
  strided_lanes(hidden, threads, [&](uint32_t lane, uint32_t i) {
    const float val = float(row_in[i]);
    lanes[lane] += val * val;
  });
  const float sum = tree_reduce(lanes, threads, plus);
  // MSL rsqrt as simt/include/detail/math.h computes it; uniform, so once per threadgroup.
  const float rms = float(1.0 / __builtin_sqrt(double(sum / float(hidden) + eps)));
  strided_lanes(hidden, threads, [&](uint32_t, uint32_t i) {
    row_out[i] = half_t(float(row_in[i]) * rms * (weight_offset + float(weight[i])));
  });
}

// ------------------------------ flash attention: 4 simdgroups, 32 query rows, 32-key tiles
namespace {

using v8f = float __attribute__((vector_size(32)));
using v8h = half_t __attribute__((vector_size(16)));

constexpr uint32_t kBQ = 32;    // FA_BQ: query rows per threadgroup
constexpr uint32_t kBK = 32;    // FA_BK: keys per tile, one per lane
constexpr uint32_t kSimds = 4;  // FA_THREADS / 32
constexpr uint32_t kRows = 8;   // FA_ROWS: query rows per simdgroup
constexpr uint32_t kDpl = 4;    // FA_DPL: output dims per lane
constexpr uint32_t kSimd = 32;  // lanes per simdgroup
constexpr uint32_t kMaxD = 128;
constexpr uint32_t kVec = 8;  // lanes per AVX2 vector

inline v8f load8(const half_t* p) {
  v8h h;
  std::memcpy(&h, p, sizeof h);
  return __builtin_convertvector(h, v8f);
}
inline v8f load8(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(float* p, v8f v) { std::memcpy(p, &v, sizeof v); }
// Eight lanes' element at a stride (a gather): lane l reads p[l * stride].
inline v8f gather8(const half_t* p, uint32_t stride) {
  const v8h h = {p[0],          p[stride],     p[2 * stride], p[3 * stride],
                 p[4 * stride], p[5 * stride], p[6 * stride], p[7 * stride]};
  return __builtin_convertvector(h, v8f);
}
inline v8f gather8(const float* p, uint32_t stride) {
  return v8f{p[0],          p[stride],     p[2 * stride], p[3 * stride],
             p[4 * stride], p[5 * stride], p[6 * stride], p[7 * stride]};
}

// The kernel's tile loads, `for (i = tid; i < 32 * D; i += 128)` with row i / D and column i % D:
// the 128 lanes' contiguous i walk the tile row by row, written as that walk (a row copy, zeros
// for the rows past `valid`). A pass sees the same only if it sees through the division by D.
void load_tile(half_t* tile, const half_t* src, int64_t row_stride, uint32_t valid, uint32_t d) {
  for (uint32_t r = 0; r < valid; ++r)
    std::memcpy(tile + r * d, src + r * row_stride, d * sizeof(half_t));
  std::fill(tile + valid * d, tile + kBK * d, half_t(0));
}

// One simdgroup's per-lane state. m and l are the same in every lane (they only ever combine
// simd_max and simd_sum results, which are uniform), so a vectorizer that tracks uniform values
// keeps one of each; acc is varying: acc[i][k][lane] is row i's output dim lane + 32k.
struct SimdgroupState {
  float m[kRows], l[kRows];
  alignas(32) float acc[kRows][kDpl][kSimd];
};

// What one key tile's phase reads: the threadgroup's tiles and the uniform positions.
struct Tile {
  const half_t* qs;  // Qs, 32 rows of d
  const half_t* ks;  // Ks and Vs, 32 keys of d
  const half_t* vs;
  float* ps;  // Ps, 32 rows of 32 probabilities
  uint32_t d, q0, q_rows, k0, kv_end, kv_offset;
  bool causal;
  float scale;
};

// s[i][lane] = Q[row0 + i] . K[lane], d ascending in every lane as in the kernel. Eight lanes a
// vector; the 8 rows' accumulators stay in registers across the d loop (K's column is a gather:
// the lanes' keys are rows of Ks).
void scores(const Tile& t, uint32_t row0, float s[kRows][kSimd]) {
  const half_t* qrows = t.qs + row0 * t.d;
  for (uint32_t b = 0; b < kSimd; b += kVec) {
    v8f acc[kRows] = {};
    for (uint32_t d = 0; d < t.d; ++d) {
      const v8f kd = gather8(t.ks + b * t.d + d, t.d);
      for (uint32_t i = 0; i < kRows; ++i) acc[i] += float(qrows[i * t.d + d]) * kd;
    }
    for (uint32_t i = 0; i < kRows; ++i) store8(&s[i][b], acc[i]);
  }
}

// Scale, then -inf for keys past the end, rows past q_rows and (causal) future keys.
void mask_scores(const Tile& t, uint32_t row0, float s[kRows][kSimd]) {
  for (uint32_t i = 0; i < kRows; ++i) {
    const uint32_t r = row0 + i;
    for (uint32_t lane = 0; lane < kSimd; ++lane) {
      const uint32_t j = t.k0 + lane;
      const bool attends =
          r < t.q_rows && j < t.kv_end && (!t.causal || j <= t.kv_offset + t.q0 + r);
      const float x = s[i][lane] * t.scale;
      s[i][lane] = attends ? x : -kInf;
    }
  }
}

// simd_max of one row: a vector reduction (max does not depend on the order).
float simd_max_row(const float* s) {
  v8f v = load8(s);
  for (uint32_t b = kVec; b < kSimd; b += kVec) v = __builtin_elementwise_max(v, load8(s + b));
  float m = v[0];
  for (uint32_t e = 1; e < kVec; ++e) m = fmax_lane(m, v[e]);
  return m;
}

// simd_sum of the 8 rows of ps (rows of 32 lanes) at once: the engine folds lanes in ascending
// order, so the sum runs along the lanes with the 8 rows as the vector (a fold along a row in
// a tree would round differently).
v8f simd_sum_rows(const float* ps) {
  v8f sum = gather8(ps, kBK);
  for (uint32_t lane = 1; lane < kSimd; ++lane) sum += gather8(ps + lane, kBK);
  return sum;
}

// The online softmax: the tile's row max, P = exp(s - m) into Ps, the rescale alpha of the old
// accumulators (uniform: one exp per row), the row sums into l.
void online_softmax(const Tile& t, uint32_t row0, float s[kRows][kSimd], SimdgroupState& st,
                    float alpha[kRows]) {
  for (uint32_t i = 0; i < kRows; ++i) {
    const float m_new = fmax_lane(st.m[i], simd_max_row(s[i]));
    const float m_use = m_new == -kInf ? 0.0f : m_new;  // all masked so far: p = 0
    float* pr = t.ps + (row0 + i) * kBK;
    for (uint32_t lane = 0; lane < kSimd; ++lane) pr[lane] = exp(s[i][lane] - m_use);
    alpha[i] = exp(st.m[i] - m_use);
    st.m[i] = m_new;
  }
  const v8f lt = simd_sum_rows(t.ps + row0 * kBK);
  for (uint32_t i = 0; i < kRows; ++i) st.l[i] = st.l[i] * alpha[i] + lt[i];
}

// O = O * alpha + P V: lane owns dims lane + 32k; per 8-lane block the 8 rows' accumulators stay
// in registers over the 32 keys (P's entry is uniform across the lanes: a broadcast).
void accumulate(const Tile& t, uint32_t row0, const float alpha[kRows], SimdgroupState& st) {
  const float* prow = t.ps + row0 * kBK;
  for (uint32_t k = 0; k < t.d / kSimd; ++k)
    for (uint32_t b = 0; b < kSimd; b += kVec) {
      v8f acc[kRows];
      for (uint32_t i = 0; i < kRows; ++i) acc[i] = load8(&st.acc[i][k][b]) * alpha[i];
      for (uint32_t jj = 0; jj < kBK; ++jj) {
        const v8f vd = load8(t.vs + jj * t.d + kSimd * k + b);
        for (uint32_t i = 0; i < kRows; ++i) acc[i] += prow[i * kBK + jj] * vd;
      }
      for (uint32_t i = 0; i < kRows; ++i) store8(&st.acc[i][k][b], acc[i]);
    }
}

// One simdgroup's work on one key tile (the code between the kernel's second barrier and the next
// tile's first; its simdgroup_barrier is nothing here, the lanes already run in step).
void simdgroup_tile(const Tile& t, uint32_t row0, SimdgroupState& st) {
  alignas(32) float s[kRows][kSimd];
  float alpha[kRows];
  scores(t, row0, s);
  mask_scores(t, row0, s);
  online_softmax(t, row0, s, st, alpha);
  accumulate(t, row0, alpha, st);
}

void write_rows(const SimdgroupState& st, uint32_t row0, uint32_t q_rows, uint32_t d, half_t* o,
                int64_t row_stride) {
  for (uint32_t i = 0; i < kRows && row0 + i < q_rows; ++i) {
    const float inv = st.l[i] > 0.0f ? 1.0f / st.l[i] : 0.0f;
    half_t* orow = o + (row0 + i) * row_stride;
    for (uint32_t k = 0; k < d / kSimd; ++k)
      for (uint32_t lane = 0; lane < kSimd; ++lane)
        orow[kSimd * k + lane] = half_t(st.acc[i][k][lane] * inv);
  }
}

}  // namespace

void flash_attention_threadgroup(const kernels::attention::AttentionProblem& p, const half_t* q,
                                 const half_t* k, const half_t* v, half_t* o, uint32_t q_tile,
                                 uint32_t head, uint32_t batch) {
  const uint32_t d = uint32_t(p.head_dim);
  const uint32_t q0 = q_tile * kBQ;
  const uint32_t kv_head = head / uint32_t(p.heads / p.kv_heads);
  alignas(32) half_t qs[kBQ * kMaxD], ks[kBK * kMaxD], vs[kBK * kMaxD];
  alignas(32) float ps[kBQ * kBK];

  Tile t{.qs = qs,
         .ks = ks,
         .vs = vs,
         .ps = ps,
         .d = d,
         .q0 = q0,
         .q_rows = std::min(kBQ, uint32_t(p.seq_q) - q0),
         .k0 = 0,
         .kv_end = uint32_t(p.seq_kv),
         .kv_offset = uint32_t(p.kv_offset),
         .causal = p.causal,
         .scale = float(p.scale)};
  load_tile(qs, q + p.q.at(batch, head, q0), p.q.seq, t.q_rows, d);
  if (p.causal) t.kv_end = std::min(t.kv_end, t.kv_offset + q0 + t.q_rows);

  SimdgroupState state[kSimds];
  for (SimdgroupState& st : state) {
    std::fill(st.m, st.m + kRows, -kInf);
    std::fill(st.l, st.l + kRows, 0.0f);
    std::fill(&st.acc[0][0][0], &st.acc[0][0][0] + kRows * kDpl * kSimd, 0.0f);
  }
  for (t.k0 = 0; t.k0 < t.kv_end; t.k0 += kBK) {
    const uint32_t valid = std::min(kBK, t.kv_end - t.k0);
    load_tile(ks, k + p.k.at(batch, kv_head, t.k0), p.k.seq, valid, d);
    load_tile(vs, v + p.v.at(batch, kv_head, t.k0), p.v.seq, valid, d);
    for (uint32_t sg = 0; sg < kSimds; ++sg)
      if (sg * kRows < t.q_rows) simdgroup_tile(t, sg * kRows, state[sg]);
  }
  for (uint32_t sg = 0; sg < kSimds; ++sg)
    if (sg * kRows < t.q_rows)
      write_rows(state[sg], sg * kRows, t.q_rows, d, o + p.o.at(batch, head, q0), p.o.seq);
}

}  // namespace metalsim::ceiling
