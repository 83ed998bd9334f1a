#pragma once
// The implementation of the SIMD-group and quad-group functions that the public header
// metal_simdgroup lists (MSL spec 6.9.2, 6.9.3), over 32-lane simdgroups, for scalar and vector
// types (vectors element-wise). docs/simdgroup.md states the semantics chosen:
//   - active lanes: the lanes of the simdgroup blocked at the same call site when every live lane
//     of the simdgroup is blocked somewhere (lanes that returned, or wait at another call site,
//     take no part), as the hardware's execution mask would have it;
//   - reductions fold the active lanes in ascending lane order ((l0 op l1) op l2 ...), each step
//     rounded to the element type (half after every addition); prefix scans likewise;
//   - a shuffle whose source lane is inactive or out of range returns the caller's own `data`;
//   - quad functions work on the four lanes 4q..4q+3; simd functions on lanes 0..31.
// Every function is one collective of the engine (simt/engine/sync.h): each lane passes its input
// and where its result goes, and a combiner computes every result once the call resolves.
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "detail/sync_point.h"
#include "detail/vec.h"

namespace metal {

namespace detail::simd {

using metalsim::engine::CollectiveCall;
using metalsim::engine::CollectiveMember;
using metalsim::engine::SyncKind;
using site_t = std::source_location;

inline constexpr uint32_t kSimdWidth = 32;
inline constexpr uint32_t kQuadWidth = 4;

// ------------------------------ value types
// A simd function takes a scalar or a vector-like (vector, packed vector, swizzle) and works on
// its value type: the scalar itself or vec<T,N>.
template <class X>
concept value = (scalar<X> && !std::is_same_v<std::remove_cvref_t<X>, bool>) || vector_like<X>;
template <class X>
concept any_value = scalar<X> || vector_like<X>;

template <class X>
struct value_of {
  using type = std::remove_cvref_t<X>;
};
template <class X>
  requires vector_like<X>
struct value_of<X> {
  using type = value_t<X>;
};
template <class X>
using value_type = typename value_of<X>::type;
// The filling_data of a shuffle_and_fill: the value type of data, not deduced from it.
template <class X>
using fill_t = std::type_identity_t<value_type<X>>;

template <class X>
struct elem_of {
  using type = X;
};
template <class X>
  requires vector_like<X>
struct elem_of<X> {
  using type = elem_t<X>;
};
template <class X>
using element_type = typename elem_of<value_type<X>>::type;

template <class X>
concept arithmetic_value = value<X>;
template <class X>
concept integral_value = value<X> && std::is_integral_v<element_type<X>>;

template <class T>
void put(const CollectiveMember& m, const T& v) {
  if constexpr (vector_like<T>) {
    T& o = m.output<T>();
    for (int k = 0; k < size_v<T>; ++k) o[k] = v[k];
  } else {
    m.output<T>() = v;
  }
}

// ------------------------------ element operations
template <class E>
constexpr bool is_nan(E x) {
  if constexpr (floating<E>)
    return !(x == x);
  else
    return false;
}

struct Sum {
  template <class E>
  static constexpr E apply(E a, E b) { return static_cast<E>(a + b); }
  template <class E>
  static constexpr E identity() { return static_cast<E>(0); }
};
struct Product {
  template <class E>
  static constexpr E apply(E a, E b) { return static_cast<E>(a * b); }
  template <class E>
  static constexpr E identity() { return static_cast<E>(1); }
};
// min/max of floating types follow fmin/fmax: a NaN operand yields the other operand. Of two
// equal operands both keep the first.
template <bool Smaller>
struct MinMax {
  template <class E>
  static constexpr E apply(E a, E b) {
    if (is_nan(a)) return b;
    if (is_nan(b)) return a;
    return (Smaller ? b < a : a < b) ? b : a;
  }
};
using Min = MinMax<true>;
using Max = MinMax<false>;
struct And {
  template <class E>
  static constexpr E apply(E a, E b) { return static_cast<E>(a & b); }
};
struct Or {
  template <class E>
  static constexpr E apply(E a, E b) { return static_cast<E>(a | b); }
};
struct Xor {
  template <class E>
  static constexpr E apply(E a, E b) { return static_cast<E>(a ^ b); }
};

template <class Op, class T>
constexpr T apply(const T& a, const T& b) {
  if constexpr (vector_like<T>) {
    T r;
    for (int k = 0; k < size_v<T>; ++k) r[k] = Op::apply(a[k], b[k]);
    return r;
  } else {
    return Op::apply(a, b);
  }
}
template <class Op, class T>
constexpr T identity() {
  if constexpr (vector_like<T>)
    return T(Op::template identity<elem_t<T>>());
  else
    return Op::template identity<T>();
}

// ------------------------------ combiners (run once per resolved call, members in lane order)
// Calls f(first, last) for each group of width G (a simdgroup or a quad) among the members.
template <uint32_t G, class F>
void for_each_group(const CollectiveCall& c, F f) {
  uint32_t i = 0;
  while (i < c.count) {
    const uint32_t g = c.members[i].simd_lane / G;
    uint32_t j = i + 1;
    while (j < c.count && c.members[j].simd_lane / G == g) ++j;
    f(i, j);
    i = j;
  }
}

template <uint32_t G, class Op, class T>
void reduce_combine(const CollectiveCall& c) {
  for_each_group<G>(c, [&](uint32_t b, uint32_t e) {
    T acc = c.members[b].input<T>();
    for (uint32_t i = b + 1; i < e; ++i) acc = apply<Op>(acc, c.members[i].input<T>());
    for (uint32_t i = b; i < e; ++i) put(c.members[i], acc);
  });
}

template <uint32_t G, class Op, class T, bool Inclusive>
void prefix_combine(const CollectiveCall& c) {
  for_each_group<G>(c, [&](uint32_t b, uint32_t e) {
    T acc = c.members[b].input<T>();
    put(c.members[b], Inclusive ? acc : identity<Op, T>());
    for (uint32_t i = b + 1; i < e; ++i) {
      if (Inclusive) {
        acc = apply<Op>(acc, c.members[i].input<T>());
        put(c.members[i], acc);
      } else {
        put(c.members[i], acc);
        acc = apply<Op>(acc, c.members[i].input<T>());
      }
    }
  });
}

// The source lane of a shuffle, or -1 when it is out of range (the caller keeps its value).
enum class Mode { index, up, down, bxor, rotate_up, rotate_down, first };

template <uint32_t G, Mode M>
int32_t source_lane(uint32_t lane, uint64_t a, uint32_t first_active) {
  const uint32_t base = lane / G * G, l = lane % G;
  switch (M) {
    case Mode::index: return a < G ? int32_t(base + a) : -1;
    case Mode::up: return a <= l ? int32_t(lane - a) : -1;
    case Mode::down: return l + a < G ? int32_t(lane + a) : -1;
    case Mode::bxor: return (l ^ a) < G ? int32_t(base + (l ^ a)) : -1;
    case Mode::rotate_up: return int32_t(base + (l + G - a % G) % G);
    case Mode::rotate_down: return int32_t(base + (l + a % G) % G);
    case Mode::first: return int32_t(first_active);
  }
  return -1;
}

template <uint32_t G, Mode M, class T>
void shuffle_combine(const CollectiveCall& c) {
  int8_t at[kSimdWidth];
  for (auto& x : at) x = -1;
  for (uint32_t i = 0; i < c.count; ++i) at[c.members[i].simd_lane] = int8_t(i);
  for_each_group<G>(c, [&](uint32_t b, uint32_t e) {
    const uint32_t first = c.members[b].simd_lane;
    for (uint32_t i = b; i < e; ++i) {
      const CollectiveMember& m = c.members[i];
      const int32_t src = source_lane<G, M>(m.simd_lane, m.arg, first);
      const bool ok = src >= 0 && src < int32_t(kSimdWidth) && at[src] >= 0;
      put(m, ok ? c.members[at[src]].input<T>() : m.input<T>());
    }
  });
}

// simd_shuffle_and_fill_{up,down}: each lane passes {data, filling_data}; arg = delta | modulo<<16.
template <class T>
struct FillPair {
  T data;
  T fill;
};

template <uint32_t G, bool Up, class T>
void fill_combine(const CollectiveCall& c) {
  int8_t at[kSimdWidth];
  for (auto& x : at) x = -1;
  for (uint32_t i = 0; i < c.count; ++i) at[c.members[i].simd_lane] = int8_t(i);
  for (uint32_t i = 0; i < c.count; ++i) {
    const CollectiveMember& m = c.members[i];
    const uint32_t delta = uint32_t(m.arg & 0xFFFF);
    uint32_t mod = uint32_t(m.arg >> 16);
    if (mod == 0 || mod > G) mod = G;
    const uint32_t lane = m.simd_lane, idx = lane % mod, block = lane - idx;
    int32_t src = -1;
    bool from_fill = false;
    if (delta <= mod) {
      if (Up) {
        if (idx >= delta) src = int32_t(block + idx - delta);
        else src = int32_t(block + mod - delta + idx), from_fill = true;
      } else {
        if (idx + delta < mod) src = int32_t(block + idx + delta);
        else src = int32_t(block + idx + delta - mod), from_fill = true;
      }
    }
    const bool ok = src >= 0 && src < int32_t(kSimdWidth) && at[src] >= 0;
    const auto& p = (ok ? c.members[at[src]] : m).input<FillPair<T>>();
    put(m, ok && from_fill ? p.fill : p.data);
  }
}

// Votes: each lane passes a bool; the group's mask of lanes that passed true.
enum class Vote { ballot, all, any, active, is_first };

template <uint32_t G>
uint32_t group_lanes(const CollectiveCall& c, uint32_t lane) {
  // Lanes that exist in this simdgroup (a partial last simdgroup has fewer), as bits of the group.
  const uint32_t exist = c.simd_size >= 32 ? 0xFFFFFFFFu : (1u << c.simd_size) - 1u;
  const uint32_t base = lane / G * G;
  if constexpr (G == 32)
    return exist;
  else
    return (exist >> base) & ((1u << G) - 1u);
}

template <uint32_t G, Vote V, class R>
void vote_combine(const CollectiveCall& c) {
  for_each_group<G>(c, [&](uint32_t b, uint32_t e) {
    uint32_t mask = 0, active = 0;
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t bit = 1u << (c.members[i].simd_lane % G);
      active |= bit;
      if (V == Vote::active || c.members[i].input<bool>()) mask |= bit;
    }
    const uint32_t lanes = group_lanes<G>(c, c.members[b].simd_lane);
    for (uint32_t i = b; i < e; ++i) {
      const CollectiveMember& m = c.members[i];
      if constexpr (V == Vote::ballot || V == Vote::active) {
        m.output<R>() = R(typename R::vote_t(mask), lanes);  // simd_vote or quad_vote
      } else if constexpr (V == Vote::all) {
        m.output<bool>() = mask == active;
      } else if constexpr (V == Vote::any) {
        m.output<bool>() = mask != 0;
      } else {
        m.output<bool>() = i == b;
      }
    }
  });
}

// ------------------------------ the calls each public function makes
template <uint32_t G, class Op, class T>
T reduce(const T& x, site_t site) {
  T r = x;
  metalsim::engine::simd_collective(&reduce_combine<G, Op, T>, &x, &r, 0, SyncKind::SimdCollective,
                                    site);
  return r;
}
template <uint32_t G, class Op, bool Inclusive, class T>
T prefix(const T& x, site_t site) {
  T r = x;
  metalsim::engine::simd_collective(&prefix_combine<G, Op, T, Inclusive>, &x, &r, 0,
                                    SyncKind::SimdCollective, site);
  return r;
}
template <uint32_t G, Mode M, class T>
T shuffle(const T& x, uint64_t arg, site_t site) {
  T r = x;
  metalsim::engine::simd_collective(&shuffle_combine<G, M, T>, &x, &r, arg,
                                    SyncKind::SimdCollective, site);
  return r;
}
template <uint32_t G, bool Up, class T>
T fill(const T& x, const T& f, uint32_t delta, uint32_t modulo, site_t site) {
  const FillPair<T> p{x, f};
  T r = x;
  metalsim::engine::simd_collective(&fill_combine<G, Up, T>, &p, &r,
                                    uint64_t(delta & 0xFFFF) | (uint64_t(modulo & 0xFFFF) << 16),
                                    SyncKind::SimdCollective, site);
  return r;
}
template <uint32_t G, Vote V, class R>
R vote(bool x, site_t site) {
  R r{};
  metalsim::engine::simd_collective(&vote_combine<G, V, R>, &x, &r, 0, SyncKind::SimdCollective,
                                    site);
  return r;
}

}  // namespace detail::simd

}  // namespace metal

// ------------------------------ the public functions' shapes
// metal_simdgroup spells out every public name once and defines it with one of these.

// T name(T data): a reduction of the group (G = 32: simd_*, 4: quad_*) with Op.
#define METALSIM_SIMD_REDUCE(name, G, Op, Concept)                                     \
  template <::metal::detail::simd::Concept X>                                          \
  ::metal::detail::simd::value_type<X> name(const X& data, METALSIM_CALL_SITE) {       \
    using V = ::metal::detail::simd::value_type<X>;                                    \
    return ::metal::detail::simd::reduce<G, ::metal::detail::simd::Op>(V(data), site); \
  }
// T name(T data): an inclusive or exclusive prefix scan with Op.
#define METALSIM_SIMD_PREFIX(name, G, Op, Inclusive)                                    \
  template <::metal::detail::simd::arithmetic_value X>                                  \
  ::metal::detail::simd::value_type<X> name(const X& data, METALSIM_CALL_SITE) {        \
    using V = ::metal::detail::simd::value_type<X>;                                     \
    using O = ::metal::detail::simd::Op;                                                \
    return ::metal::detail::simd::prefix<G, O, Inclusive>(V(data), site);               \
  }
// T name(T data, ushort arg): a shuffle; arg is a lane, a delta or a mask as M says.
#define METALSIM_SIMD_SHUFFLE(name, G, M)                                                    \
  template <::metal::detail::simd::any_value X>                                              \
  ::metal::detail::simd::value_type<X> name(const X& data, ushort arg, METALSIM_CALL_SITE) { \
    using V = ::metal::detail::simd::value_type<X>;                                          \
    using ::metal::detail::simd::Mode;                                                       \
    return ::metal::detail::simd::shuffle<G, Mode::M>(V(data), arg, site);                   \
  }
// T name(T data, T filling_data, ushort delta [, ushort modulo]): a shuffle that fills the lanes
// without a source from filling_data (Up: shuffle_and_fill_up).
#define METALSIM_SIMD_FILL(name, G, Up)                                                       \
  template <::metal::detail::simd::any_value X>                                               \
  ::metal::detail::simd::value_type<X> name(const X& data,                                    \
                                            const ::metal::detail::simd::fill_t<X>& filling_data, \
                                            ushort delta, METALSIM_CALL_SITE) {               \
    using V = ::metal::detail::simd::value_type<X>;                                           \
    return ::metal::detail::simd::fill<G, Up>(V(data), filling_data, delta, G, site);         \
  }                                                                                           \
  template <::metal::detail::simd::any_value X>                                               \
  ::metal::detail::simd::value_type<X> name(                                                  \
      const X& data, const ::metal::detail::simd::fill_t<X>& filling_data, ushort delta,      \
      ushort modulo, METALSIM_CALL_SITE) {                                                    \
    using V = ::metal::detail::simd::value_type<X>;                                           \
    return ::metal::detail::simd::fill<G, Up>(V(data), filling_data, delta, modulo, site);    \
  }
