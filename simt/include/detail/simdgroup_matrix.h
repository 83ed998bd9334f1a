#pragma once
// The implementation of the simdgroup_matrix functions that the public header
// metal_simdgroup_matrix lists: simdgroup_matrix<T,8,8> spread over the 32 lanes of a
// simdgroup, two elements per lane, in Apple's layout (docs/simdgroup.md gives the sources):
//   q = lane / 4, row = (q & 4) + (lane / 2) % 4, col = (q & 2) * 2 + (lane % 2) * 2,
//   thread_elements() = { M[row][col], M[row][col + 1] }.
// Loads, stores and multiplies are collectives of the simdgroup (engine SyncKind::SimdMatrix:
// every live lane must take part, else the engine reports simd.partial); the diagonal constructor
// is lane-local. Elements of lanes that do not take part (a partial last simdgroup, a lane that
// returned) read as 0 and are not written.
//
// Multiplication: d[r][c] = c[r][c] + sum over k = 0..7 of a[r][k] * b[k][c], accumulated in float
// (double for double matrices) in ascending k starting from c, rounded to d's type once.
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "detail/sync_point.h"
#include "detail/vec.h"

namespace metal {

namespace detail::sgm {

using metalsim::engine::CollectiveCall;
using metalsim::engine::CollectiveMember;
using metalsim::engine::SyncKind;

// The matrix position of a lane's first element (the second is one column right).
struct Coord {
  uint32_t row, col;
};
constexpr Coord coord(uint32_t lane) {
  const uint32_t q = lane / 4;
  return {(q & 4) + (lane / 2) % 4, (q & 2) * 2 + (lane % 2) * 2};
}

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// ------------------------------ load / store
template <class T, class U>
struct LoadArgs {
  const U* src;
  ulong elements_per_row;
  ulong col0, row0;  // matrix_origin.x, matrix_origin.y
  bool transpose;
};

// Element (r, c) of the matrix is src[(row0 + r) * epr + col0 + c]; transposed, the block at the
// same origin is read transposed: src[(row0 + c) * epr + col0 + r].
template <class A>
ulong offset(const A& a, uint32_t r, uint32_t c) {
  return a.transpose ? (a.row0 + c) * a.elements_per_row + a.col0 + r
                     : (a.row0 + r) * a.elements_per_row + a.col0 + c;
}

template <class T, class U>
void load_combine(const CollectiveCall& call) {
  for (uint32_t i = 0; i < call.count; ++i) {
    const CollectiveMember& m = call.members[i];
    const auto& a = m.input<LoadArgs<T, U>>();
    auto& out = m.output<vec<T, 2>>();
    const Coord p = coord(m.simd_lane);
    out[0] = static_cast<T>(a.src[offset(a, p.row, p.col)]);
    out[1] = static_cast<T>(a.src[offset(a, p.row, p.col + 1)]);
  }
}

template <class T, class U>
struct StoreArgs {
  vec<T, 2> elements;
  U* dst;
  ulong elements_per_row;
  ulong col0, row0;
  bool transpose;
};

template <class T, class U>
void store_combine(const CollectiveCall& call) {
  for (uint32_t i = 0; i < call.count; ++i) {
    const CollectiveMember& m = call.members[i];
    const auto& a = m.input<StoreArgs<T, U>>();
    const Coord p = coord(m.simd_lane);
    a.dst[offset(a, p.row, p.col)] = static_cast<U>(a.elements[0]);
    a.dst[offset(a, p.row, p.col + 1)] = static_cast<U>(a.elements[1]);
  }
}

// ------------------------------ multiply
template <class D, class A, class B, class C>
struct MulArgs {
  vec<A, 2> a;
  vec<B, 2> b;
  vec<C, 2> c;
};

// Gathers one operand of every member into a dense 8x8 (missing lanes read 0).
template <class Acc, class X, class Get>
void gather(const CollectiveCall& call, Acc (&m)[8][8], Get get) {
  for (auto& row : m)
    for (auto& x : row) x = Acc(0);
  for (uint32_t i = 0; i < call.count; ++i) {
    const Coord p = coord(call.members[i].simd_lane);
    const vec<X, 2>& e = get(call.members[i]);
    m[p.row][p.col] = static_cast<Acc>(e[0]);
    m[p.row][p.col + 1] = static_cast<Acc>(e[1]);
  }
}

template <class D, class A, class B, class C, bool Accumulate>
void multiply_combine(const CollectiveCall& call) {
  using Acc = acc_t<D>;
  using Args = MulArgs<D, A, B, C>;
  auto args = [](const CollectiveMember& m) -> const Args& { return m.input<Args>(); };
  Acc a[8][8], b[8][8], c[8][8];
  gather<Acc, A>(call, a, [&](const CollectiveMember& m) -> const vec<A, 2>& { return args(m).a; });
  gather<Acc, B>(call, b, [&](const CollectiveMember& m) -> const vec<B, 2>& { return args(m).b; });
  if (Accumulate) {
    gather<Acc, C>(call, c,
                   [&](const CollectiveMember& m) -> const vec<C, 2>& { return args(m).c; });
  }
  for (uint32_t i = 0; i < call.count; ++i) {
    const Coord p = coord(call.members[i].simd_lane);
    auto& out = call.members[i].output<vec<D, 2>>();
    for (uint32_t e = 0; e < 2; ++e) {
      const uint32_t r = p.row, col = p.col + e;
      Acc s = Accumulate ? c[r][col] : Acc(0);
      for (uint32_t k = 0; k < 8; ++k) s += a[r][k] * b[k][col];
      out[int(e)] = static_cast<D>(s);
    }
  }
}

// ------------------------------ the calls the public functions make
// Each is one collective of the simdgroup (SyncKind::SimdMatrix: every live lane takes part).
template <class T, class U>
void load(vec<T, 2>& d, const U* src, ulong elements_per_row, ulong2 origin, bool transpose,
          std::source_location site) {
  const LoadArgs<T, U> args{src, elements_per_row, origin.x, origin.y, transpose};
  metalsim::engine::simd_collective(&load_combine<T, U>, &args, &d, 0, SyncKind::SimdMatrix, site);
}

template <class T, class U>
void store(const vec<T, 2>& a, U* dst, ulong elements_per_row, ulong2 origin, bool transpose,
           std::source_location site) {
  const StoreArgs<T, U> args{a, dst, elements_per_row, origin.x, origin.y, transpose};
  metalsim::engine::simd_collective(&store_combine<T, U>, &args, nullptr, 0, SyncKind::SimdMatrix,
                                    site);
}

// d = a * b (+ c when Accumulate). The operands are copied into the arguments first, so d may
// alias a, b or c.
template <bool Accumulate, class D, class A, class B, class C>
void multiply(vec<D, 2>& d, const vec<A, 2>& a, const vec<B, 2>& b, const vec<C, 2>& c,
              std::source_location site) {
  const MulArgs<D, A, B, C> args{a, b, c};
  metalsim::engine::simd_collective(&multiply_combine<D, A, B, C, Accumulate>, &args, &d, 0,
                                    SyncKind::SimdMatrix, site);
}

// This lane's two elements of a matrix with dval on the diagonal and 0 elsewhere.
template <class T>
vec<T, 2> diagonal_elements(T dval) {
  const Coord p = coord(metalsim::engine::current_simd_lane());
  vec<T, 2> e;
  e[0] = p.row == p.col ? dval : T(0);
  e[1] = p.row == p.col + 1 ? dval : T(0);
  return e;
}

}  // namespace detail::sgm
}  // namespace metal
