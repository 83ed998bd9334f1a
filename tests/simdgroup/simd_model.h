#pragma once
// Shared by simd_function_test.cpp (G = 32) and quad_function_test.cpp (G = 4): one hand kernel
// per (group width, type) that runs one simd_* / quad_* function chosen by a parameter, with
// lanes that return early and two call sites, and a scalar model of what each lane must get.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <metal_stdlib>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing::simd_model {

enum Op : uint32_t {
  kSum,
  kProduct,
  kMin,
  kMax,
  kAnd,
  kOr,
  kXor,
  kPrefixIncSum,
  kPrefixIncProduct,
  kPrefixExcSum,
  kPrefixExcProduct,
  kShuffle,
  kBroadcast,
  kShuffleUp,
  kShuffleDown,
  kShuffleXor,
  kRotateUp,
  kRotateDown,
  kFillUp,
  kFillDown,
  kFillUpModulo,
  kFillDownModulo,
  kBroadcastFirst,
  kBallot,
  kAll,
  kAny,
  kActiveMask,
  kActiveAll,
  kIsFirst,
  kOpCount
};

inline const char* op_name(uint32_t op) {
  static const char* names[] = {"sum",
                                "product",
                                "min",
                                "max",
                                "and",
                                "or",
                                "xor",
                                "prefix_inclusive_sum",
                                "prefix_inclusive_product",
                                "prefix_exclusive_sum",
                                "prefix_exclusive_product",
                                "shuffle",
                                "broadcast",
                                "shuffle_up",
                                "shuffle_down",
                                "shuffle_xor",
                                "shuffle_rotate_up",
                                "shuffle_rotate_down",
                                "shuffle_and_fill_up",
                                "shuffle_and_fill_down",
                                "shuffle_and_fill_up(modulo)",
                                "shuffle_and_fill_down(modulo)",
                                "broadcast_first",
                                "ballot",
                                "all",
                                "any",
                                "active_threads_mask",
                                "active_threads_mask.all",
                                "is_first"};
  return names[op];
}

struct Params {
  uint32_t op;
  uint32_t delta;     // up/down/xor/rotate/fill delta; broadcast lane
  uint32_t modulo;    // fill modulo
  uint32_t lane_mul;  // simd_shuffle source = (lane * lane_mul + lane_add) % (G + 4)
  uint32_t lane_add;
  uint32_t divergent;  // lanes i % 7 == 5 return; i % 3 == 0 call at one site, the rest at another
};

inline bool returns_early(const Params& p, uint32_t i) { return p.divergent && i % 7 == 5; }
inline bool first_site(const Params& p, uint32_t i) { return !p.divergent || i % 3 == 0; }

template <class T>
using elem = metal::detail::simd::element_type<T>;

template <class T>
bool predicate(const T& x) {
  if constexpr (metal::detail::vector_like<T>) return predicate(x[0]);
  else if constexpr (std::is_integral_v<T>) return (x & 1) != 0;
  else return x > T(0);
}

// Calls the function under test; `site` is the kernel's call site.
template <uint32_t G, class T>
T run_op(const Params& p, const T& x, const T& f, uint32_t lane,
         std::source_location site = std::source_location::current()) {
  using namespace metal;
  using E = elem<T>;
  constexpr bool simd = G == 32;
#define CALL(name, ...) (simd ? simd_##name(__VA_ARGS__, site) : quad_##name(__VA_ARGS__, site))
  switch (p.op) {
    case kSum: return CALL(sum, x);
    case kProduct: return CALL(product, x);
    case kMin: return CALL(min, x);
    case kMax: return CALL(max, x);
    case kPrefixIncSum: return CALL(prefix_inclusive_sum, x);
    case kPrefixIncProduct: return CALL(prefix_inclusive_product, x);
    case kPrefixExcSum: return CALL(prefix_exclusive_sum, x);
    case kPrefixExcProduct: return CALL(prefix_exclusive_product, x);
    case kShuffle: return CALL(shuffle, x, ushort((lane * p.lane_mul + p.lane_add) % (G + 4)));
    case kBroadcast: return CALL(broadcast, x, ushort(p.delta));
    case kShuffleUp: return CALL(shuffle_up, x, ushort(p.delta));
    case kShuffleDown: return CALL(shuffle_down, x, ushort(p.delta));
    case kShuffleXor: return CALL(shuffle_xor, x, ushort(p.delta));
    case kRotateUp: return CALL(shuffle_rotate_up, x, ushort(p.delta));
    case kRotateDown: return CALL(shuffle_rotate_down, x, ushort(p.delta));
    case kFillUp: return CALL(shuffle_and_fill_up, x, f, ushort(p.delta));
    case kFillDown: return CALL(shuffle_and_fill_down, x, f, ushort(p.delta));
    case kFillUpModulo: return CALL(shuffle_and_fill_up, x, f, ushort(p.delta), ushort(p.modulo));
    case kFillDownModulo:
      return CALL(shuffle_and_fill_down, x, f, ushort(p.delta), ushort(p.modulo));
    case kBroadcastFirst: return CALL(broadcast_first, x);
    default: break;
  }
  if constexpr (std::is_integral_v<E>) {
    switch (p.op) {
      // (`and`, `or`, `xor` are alternative tokens: no ## pasting)
      case kAnd: return simd ? simd_and(x, site) : quad_and(x, site);
      case kOr: return simd ? simd_or(x, site) : quad_or(x, site);
      case kXor: return simd ? simd_xor(x, site) : quad_xor(x, site);
      default: break;
    }
  }
#undef CALL
  if constexpr (std::is_same_v<T, uint>) {
    const bool pred = predicate(x);
    auto mask = [](auto v) { return uint(static_cast<typename decltype(v)::vote_t>(v)); };
    switch (p.op) {
      case kBallot: return simd ? mask(simd_ballot(pred, site)) : mask(quad_ballot(pred, site));
      case kAll: return simd ? simd_all(pred, site) : quad_all(pred, site);
      case kAny: return simd ? simd_any(pred, site) : quad_any(pred, site);
      case kActiveMask:
        return simd ? mask(simd_active_threads_mask(site)) : mask(quad_active_threads_mask(site));
      case kActiveAll:
        return simd ? simd_active_threads_mask(site).all() : quad_active_threads_mask(site).all();
      case kIsFirst: return simd ? simd_is_first(site) : quad_is_first(site);
      default: break;
    }
  }
  return T(E(0xBAD));
}

template <uint32_t G, class T>
void ops_body(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t n = lane.value(Builtin::threads_per_threadgroup).x;
  const uint32_t i = lane.value(Builtin::thread_index_in_threadgroup).x;
  const uint32_t g = lane.value(Builtin::threadgroup_position_in_grid).x;
  const T* in = buffer<const T>(a, 0) + size_t(g) * n;
  const T* fills = buffer<const T>(a, 1) + size_t(g) * n;
  T* out = buffer<T>(a, 2) + size_t(g) * n;
  const Params& p = *buffer<const Params>(a, 3);
  const uint32_t l = lane.value(Builtin::thread_index_in_simdgroup).x;
  if (returns_early(p, i)) return;
  if (first_site(p, i)) out[i] = run_op<G>(p, in[i], fills[i], l);
  else out[i] = run_op<G>(p, in[i], fills[i], l);
}

// ------------------------------ the model
// Scalar element type E, C components per lane; one threadgroup of n lanes.
template <class E>
bool same(E a, E b) {
  if constexpr (std::is_floating_point_v<E> || std::is_same_v<E, metal::half>) {
    if (a != a && b != b) return true;
    return std::memcmp(&a, &b, sizeof(E)) == 0;
  } else {
    return a == b;
  }
}

template <class E>
E fold(uint32_t op, E a, E b) {
  switch (op) {
    case kSum:
    case kPrefixIncSum:
    case kPrefixExcSum: return E(a + b);
    case kProduct:
    case kPrefixIncProduct:
    case kPrefixExcProduct: return E(a * b);
    case kMin:
      if constexpr (std::is_integral_v<E>) return std::min(a, b);
      else return E(std::fmin(float(a), float(b)));
    case kMax:
      if constexpr (std::is_integral_v<E>) return std::max(a, b);
      else return E(std::fmax(float(a), float(b)));
    default: break;
  }
  if constexpr (std::is_integral_v<E>) {
    if (op == kAnd) return E(a & b);
    if (op == kOr) return E(a | b);
    if (op == kXor) return E(a ^ b);
  }
  return E(0);
}

template <class E>
std::vector<E> model(uint32_t G, uint32_t C, uint32_t n, const std::vector<E>& x,
                     const std::vector<E>& f, const Params& p, E poison) {
  std::vector<E> out(size_t(n) * C, poison);
  for (uint32_t i = 0; i < n; ++i) {
    if (returns_early(p, i)) continue;
    const uint32_t l = i % 32, base = i - i % G;
    // The lanes that meet lane i: same group of G, alive, same call site.
    auto in_group = [&](int64_t j) {
      return j >= int64_t(base) && j < int64_t(base + G) && j < int64_t(n) &&
             !returns_early(p, uint32_t(j)) && first_site(p, uint32_t(j)) == first_site(p, i);
    };
    std::vector<uint32_t> group;
    for (uint32_t j = base; j < base + G && j < n; ++j)
      if (in_group(j)) group.push_back(j);
    auto pred = [&](uint32_t j) {
      if constexpr (std::is_integral_v<E>) return (x[size_t(j) * C] & 1) != 0;
      else return x[size_t(j) * C] > E(0);
    };
    for (uint32_t c = 0; c < C; ++c) {
      auto X = [&](uint32_t j) { return x[size_t(j) * C + c]; };
      auto F = [&](uint32_t j) { return f[size_t(j) * C + c]; };
      E& o = out[size_t(i) * C + c];
      const uint32_t op = p.op, d = p.delta, lg = l % G;
      auto from = [&](int64_t src) { return in_group(src) ? X(uint32_t(src)) : X(i); };
      switch (op) {
        case kSum:
        case kProduct:
        case kMin:
        case kMax:
        case kAnd:
        case kOr:
        case kXor: {
          E acc = X(group[0]);
          for (size_t k = 1; k < group.size(); ++k) acc = fold(op, acc, X(group[k]));
          o = acc;
          break;
        }
        case kPrefixIncSum:
        case kPrefixIncProduct:
        case kPrefixExcSum:
        case kPrefixExcProduct: {
          const bool inc = op == kPrefixIncSum || op == kPrefixIncProduct;
          const bool sum = op == kPrefixIncSum || op == kPrefixExcSum;
          bool any = false;
          E acc = E(sum ? 0 : 1);
          for (uint32_t j : group) {
            if (j > i || (j == i && !inc)) break;
            acc = any ? fold(op, acc, X(j)) : X(j);
            any = true;
          }
          o = acc;
          break;
        }
        case kShuffle: {
          const uint32_t s = (l * p.lane_mul + p.lane_add) % (G + 4);
          o = s < G ? from(int64_t(base) + s) : X(i);
          break;
        }
        case kBroadcast: o = d < G ? from(int64_t(base) + d) : X(i); break;
        case kShuffleUp: o = lg >= d ? from(int64_t(i) - d) : X(i); break;
        case kShuffleDown: o = lg + d < G ? from(int64_t(i) + d) : X(i); break;
        case kShuffleXor: o = (lg ^ d) < G ? from(int64_t(base) + (lg ^ d)) : X(i); break;
        case kRotateUp: o = from(int64_t(base) + (lg + G - d % G) % G); break;
        case kRotateDown: o = from(int64_t(base) + (lg + d) % G); break;
        case kFillUp:
        case kFillDown:
        case kFillUpModulo:
        case kFillDownModulo: {
          const uint32_t m = (op == kFillUpModulo || op == kFillDownModulo) ? p.modulo : G;
          const uint32_t k = i % m, blk = i - k;
          int64_t src;
          bool fill;
          if (op == kFillUp || op == kFillUpModulo) {
            fill = k < d;
            src = fill ? int64_t(blk + m - d + k) : int64_t(i - d);
          } else {
            fill = k + d >= m;
            src = fill ? int64_t(blk + k + d - m) : int64_t(i + d);
          }
          o = !in_group(src) ? X(i) : fill ? F(uint32_t(src)) : X(uint32_t(src));
          break;
        }
        case kBroadcastFirst: o = X(group[0]); break;
        default: {
          uint32_t mask = 0;
          bool all = true, any = false;
          for (uint32_t j : group) {
            if (op == kActiveMask || op == kActiveAll || pred(j)) mask |= 1u << (j % G);
            all = all && pred(j);
            any = any || pred(j);
          }
          uint32_t exist = 0;
          for (uint32_t j = base; j < base + G && j < n; ++j) exist |= 1u << (j % G);
          switch (op) {
            case kBallot:
            case kActiveMask: o = E(mask); break;
            case kAll: o = E(all); break;
            case kAny: o = E(any); break;
            case kActiveAll: o = E(mask == exist); break;
            case kIsFirst: o = E(i == group[0]); break;
            default: break;
          }
        }
      }
    }
  }
  return out;
}

// Which ops apply to an element type.
template <class E>
bool applies(uint32_t op) {
  if (op == kAnd || op == kOr || op == kXor) return std::is_integral_v<E>;
  if (op >= kBallot && op < kOpCount) return std::is_same_v<E, uint>;
  return true;
}

// Random inputs for one op: products stay near 1, sums mix magnitudes so that order matters.
template <class E>
std::vector<E> inputs(uint32_t op, size_t count, std::mt19937& rng) {
  std::vector<E> v(count);
  const bool product = op == kProduct || op == kPrefixIncProduct || op == kPrefixExcProduct;
  for (auto& e : v) {
    if constexpr (std::is_integral_v<E>) {
      if (product) e = std::is_signed_v<E> ? E(int(rng() % 3) - 1) : E(rng() % 3);
      else if (std::is_signed_v<E>) e = E(int(rng() % 2001) - 1000);
      else e = E(rng());
    } else {
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      if (product) {
        e = E(1.f + 0.1f * u(rng));
      } else {
        e = E(std::ldexp(u(rng), int(rng() % 12) - 6));
        if ((op == kMin || op == kMax) && rng() % 17 == 0) e = E(NAN);
      }
    }
  }
  return v;
}

// Runs every op that applies, with the divergent and the uniform pattern, on `groups`
// threadgroups of n lanes, and compares each lane with the model.
template <uint32_t G, class T>
void check_all_ops(const char* kernel, uint32_t n, uint32_t groups, const char* schedule) {
  using E = elem<T>;
  constexpr uint32_t C = uint32_t(metal::detail::components<T>());
  static_assert(sizeof(T) == sizeof(E) * C || C == 3, "dense vectors only");
  Harness h;
  ASSERT_TRUE(metalsim::SchedulePolicy::parse(schedule, h.options().schedule));
  std::mt19937 rng(1234 + n * 7 + G);
  const E poison = E(77);
  for (uint32_t op = 0; op < kOpCount; ++op) {
    if (!applies<E>(op)) continue;
    for (uint32_t divergent = 0; divergent < 2; ++divergent) {
      Params p{op, 0, G, 0, 0, divergent};
      p.delta = rng() % (op == kBroadcast ? G + 2 : G);
      if (op >= kFillUp && op <= kFillDownModulo) {
        p.modulo = G == 32 ? (2u << (rng() % 5)) : (rng() % 2 ? 2u : 4u);
        const uint32_t m = (op == kFillUpModulo || op == kFillDownModulo) ? p.modulo : G;
        p.delta = rng() % (m + 1);
      }
      p.lane_mul = 1 + rng() % 13;
      p.lane_add = rng() % 40;
      const size_t count = size_t(n) * groups * C;
      std::vector<E> x = inputs<E>(op, count, rng), f = inputs<E>(kSum, count, rng);
      std::vector<E> poisoned(count, poison);
      auto bx = h.buffer(x), bf = h.buffer(f), bo = h.buffer(poisoned);
      auto bp = h.buffer(std::vector<Params>{p});
      auto* cb = h.run(kernel,
                       [&](auto* e) {
                         e->setBuffer(bx.get(), 0, 0);
                         e->setBuffer(bf.get(), 0, 1);
                         e->setBuffer(bo.get(), 0, 2);
                         e->setBuffer(bp.get(), 0, 3);
                       },
                       {groups, 1, 1}, {n, 1, 1});
      ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
      const E* got = static_cast<const E*>(bo->contents());
      for (uint32_t g = 0; g < groups; ++g) {
        const size_t off = size_t(g) * n * C;
        std::vector<E> gx(x.begin() + off, x.begin() + off + n * C);
        std::vector<E> gf(f.begin() + off, f.begin() + off + n * C);
        const std::vector<E> want = model<E>(G, C, n, gx, gf, p, poison);
        for (size_t k = 0; k < want.size(); ++k) {
          if (!same(got[off + k], want[k])) {
            ADD_FAILURE() << (G == 32 ? "simd_" : "quad_") << op_name(op) << " lane " << k / C
                          << " component " << k % C << " of threadgroup " << g << " (n " << n
                          << ", divergent " << divergent << ", delta " << p.delta << ", modulo "
                          << p.modulo << ", " << schedule << "): got " << double(got[off + k])
                          << ", want " << double(want[k]);
            return;
          }
        }
      }
    }
  }
}

}  // namespace metalsim::testing::simd_model
