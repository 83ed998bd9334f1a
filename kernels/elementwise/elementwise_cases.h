#pragma once
// The prepared cases the element-wise family's half specs (elementwise_spec.cpp) and float specs
// (elementwise_float_spec.cpp) share, parameterised by the kernel's element type T. Inputs are
// generated as half values and widened for float kernels, so the family's references (in double,
// from half inputs) are exact for both; the specs differ in their parameters, sweeps and
// tolerances, which they pass in. Only the half kernels have a fast native baseline.
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/elementwise/elementwise_baseline.h"
#include "kernels/elementwise/elementwise_ref.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/spec_names.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::elementwise {

template <class T>
std::vector<T> as_elements(const std::vector<half_t>& v) {
  return {v.begin(), v.end()};
}

// The inputs as the kernel's elements, kept for an in-place comparison: the half inputs
// themselves for a half kernel.
template <class T>
std::shared_ptr<const std::vector<T>> kept_elements(std::shared_ptr<std::vector<half_t>> v) {
  if constexpr (std::is_same_v<T, half_t>) return v;
  else return std::make_shared<const std::vector<T>>(as_elements<T>(*v));
}

// ------------------------------ the sweeps' shared cases
// Each spec's sweep is these in this order plus its own cases (the order names the tests).

// One element and one thread; a row one short of and one past 256 threads; a row no multiple of
// the threadgroup's size.
inline std::vector<spec::Params> rms_norm_sweep_start() {
  return {{{"rows", 1}, {"hidden", 1}, {"tg", 1}},
          {{"rows", 2}, {"hidden", 255}, {"tg", 256}},
          {{"rows", 2}, {"hidden", 257}, {"tg", 256}},
          {{"rows", 3}, {"hidden", 100}, {"tg", 33}}};
}
inline const spec::Params kRmsNormWideRow = {{"rows", 1}, {"hidden", 4096}, {"tg", 1024}};

// The smallest pair; GQA with a position offset; many heads far into the sequence with Llama
// 3's theta.
inline std::vector<spec::Params> rope_sweep_start() {
  return {
      {{"seq", 1}, {"q_heads", 1}, {"kv_heads", 1}, {"head_dim", 2}, {"tg", 1}},
      {{"seq", 3}, {"q_heads", 4}, {"kv_heads", 1}, {"head_dim", 64}, {"offset", 7}, {"tg", 33}},
      {{"seq", 2},
       {"q_heads", 8},
       {"kv_heads", 2},
       {"head_dim", 128},
       {"offset", 4096},
       {"theta", 1000000},
       {"tg", 256}}};
}

// One element; one past a simdgroup; one past the largest threadgroup.
inline std::vector<spec::Params> binary_sweep() {
  return {{{"count", 1}, {"tg", 1}}, {{"count", 33}, {"tg", 32}}, {{"count", 1025}, {"tg", 1024}}};
}

// ------------------------------ rms_norm: one threadgroup per row
struct RmsNormCase {
  std::string kernel;
  uint32_t rows, hidden, tg;
  uint32_t shared_floats;  // threadgroup(0) floats
  float eps;
  double weight_offset;  // 0: x * w, 1: Gemma's x * (1 + w)
  spec::Tolerance tolerance;
};

template <class T>
std::unique_ptr<spec::PreparedCase> prepare_rms_norm(const RmsNormCase& s, spec::CaseContext& ctx) {
  spec::InputGenerator gen(ctx.seed());
  auto c = std::make_unique<spec::StandardCase>();
  auto x = std::make_shared<std::vector<half_t>>(
      gen.uniform_vector<half_t>(size_t(s.rows) * s.hidden, -2, 2));
  auto w = std::make_shared<std::vector<half_t>>(
      s.weight_offset == 0 ? gen.uniform_vector<half_t>(s.hidden, 0.5, 1.5)
                           : gen.uniform_vector<half_t>(s.hidden, -0.5, 0.5));
  auto ref = std::make_shared<std::vector<double>>();
  auto bx = ctx.buffer(as_elements<T>(*x)), bw = ctx.buffer(as_elements<T>(*w));
  const size_t n = x->size();
  auto out = ctx.buffer(n * sizeof(T));
  const auto poison = spec::poisoner<T>(out, n);
  poison();
  auto bind = [=](MTL::ComputeCommandEncoder* e) {
    spec::set_buffers(e, {bx.get(), bw.get(), out.get()});
    e->setBytes(&s.hidden, sizeof s.hidden, 3);
    e->setBytes(&s.eps, sizeof s.eps, 4);
    e->setThreadgroupMemoryLength(spec::tg_bytes(s.shared_floats * sizeof(float)), 0);
  };
  c->kernel = spec::one_dispatch(ctx, s.kernel, bind, {s.rows, 1, 1}, {s.tg, 1, 1},
                                 spec::CaseContext::Grid::threadgroups);
  c->reference = [=] { *ref = rms_norm_ref(*x, *w, s.rows, s.hidden, s.eps, s.weight_offset); };
  c->check = [=](spec::CaseResult& r) {
    spec::compare_output("output", spec::contents<T>(out), ref->data(), n, s.tolerance, r);
  };
  c->expose("output", out);
  c->poison_again = poison;
  if constexpr (std::is_same_v<T, half_t>) {
    auto fast_out = std::make_shared<std::vector<half_t>>(n);
    c->baseline = [=] {
      rms_norm_baseline(x->data(), w->data(), fast_out->data(), s.rows, s.hidden, s.eps,
                        float(s.weight_offset));
    };
  }
  return c;
}

// ------------------------------ rope: Q and K in place
struct RopeCase {
  std::string kernel;
  uint32_t seq, q_heads, kv_heads, head_dim, offset, tg;
  float theta;
  spec::Tolerance tolerance;
};

// The case the parameters seq, q_heads, kv_heads, head_dim, offset, theta and tg name.
inline RopeCase rope_case(const spec::Params& p, std::string kernel, spec::Tolerance tolerance) {
  return {std::move(kernel),          uint32_t(p.at("seq")),      uint32_t(p.at("q_heads")),
          uint32_t(p.at("kv_heads")), uint32_t(p.at("head_dim")), uint32_t(p.at("offset")),
          uint32_t(p.at("tg")),       float(p.at("theta")),       std::move(tolerance)};
}

// The corrected kernels' arguments (elementwise.metal's RopeParams).
struct RopeArgs {
  uint32_t seq_len, q_heads, kv_heads, head_dim, position_offset;
  float theta_base;
};

// The document's kernel has one head count for Q and K: the host passes Q's.
inline void bind_documented_rope(MTL::ComputeCommandEncoder* e, const RopeCase& s) {
  e->setBytes(&s.seq, 4, 2);
  e->setBytes(&s.q_heads, 4, 3);
  e->setBytes(&s.head_dim, 4, 4);
  e->setBytes(&s.offset, 4, 5);
  e->setBytes(&s.theta, 4, 6);
}

template <class T>
std::unique_ptr<spec::PreparedCase> prepare_rope(const RopeCase& s, bool documented,
                                                 spec::CaseContext& ctx) {
  spec::InputGenerator gen(ctx.seed());
  auto c = std::make_unique<spec::StandardCase>();
  auto q = std::make_shared<std::vector<half_t>>(
      gen.uniform_vector<half_t>(size_t(s.seq) * s.q_heads * s.head_dim, -2, 2));
  auto k = std::make_shared<std::vector<half_t>>(
      gen.uniform_vector<half_t>(size_t(s.seq) * s.kv_heads * s.head_dim, -2, 2));
  auto qt = kept_elements<T>(q), kt = kept_elements<T>(k);
  auto qref = std::make_shared<std::vector<double>>(),
       kref = std::make_shared<std::vector<double>>();
  auto bq = ctx.buffer(*qt), bk = ctx.buffer(*kt);
  const RopeArgs args{s.seq, s.q_heads, s.kv_heads, s.head_dim, s.offset, s.theta};
  auto bind = [=](MTL::ComputeCommandEncoder* e) {
    spec::set_buffers(e, {bq.get(), bk.get()});
    if (documented) bind_documented_rope(e, s);
    else e->setBytes(&args, sizeof args, 2);
  };
  const uint32_t heads = documented ? s.q_heads : s.q_heads + s.kv_heads;  // the document's: Q's
  c->kernel = spec::one_dispatch(ctx, s.kernel, bind, {s.head_dim / 2, heads, s.seq}, {s.tg, 1, 1},
                                 spec::CaseContext::Grid::threads);
  c->reference = [=] {
    *qref = rope_ref(*q, s.seq, s.q_heads, s.head_dim, s.offset, s.theta);
    *kref = rope_ref(*k, s.seq, s.kv_heads, s.head_dim, s.offset, s.theta);
  };
  c->check = [=](spec::CaseResult& r) {
    spec::compare_in_place("q", spec::contents<T>(bq), *qt, *qref, s.tolerance, r);
    spec::compare_in_place("k", spec::contents<T>(bk), *kt, *kref, s.tolerance, r);
  };
  c->poison_again = [=] {
    spec::fill(bq, *qt);
    spec::fill(bk, *kt);
  };
  c->expose("q", bq);
  c->expose("k", bk);
  if constexpr (std::is_same_v<T, half_t>) {
    auto fast_q = std::make_shared<std::vector<half_t>>(q->size()),
         fast_k = std::make_shared<std::vector<half_t>>(k->size());
    c->baseline = [=] {
      rope_baseline(q->data(), fast_q->data(), s.seq, s.q_heads, s.head_dim, s.offset, s.theta);
      rope_baseline(k->data(), fast_k->data(), s.seq, s.kv_heads, s.head_dim, s.offset, s.theta);
    };
  }
  return c;
}

// ------------------------------ multiply, swiglu: two inputs, one output
using BinaryRef = std::vector<double> (*)(const std::vector<half_t>&, const std::vector<half_t>&);
using BinaryBaseline = void (*)(const half_t*, const half_t*, half_t*, size_t);

struct BinaryCase {
  std::string kernel;
  uint32_t count, tg;
  BinaryRef ref;
  spec::Tolerance tolerance;
  BinaryBaseline fast = nullptr;  // none for float kernels
};

template <class T>
std::unique_ptr<spec::PreparedCase> prepare_binary(const BinaryCase& s, spec::CaseContext& ctx) {
  spec::InputGenerator gen(ctx.seed());
  auto c = std::make_unique<spec::StandardCase>();
  auto a = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(s.count, -8, 8));
  auto b = std::make_shared<std::vector<half_t>>(gen.uniform_vector<half_t>(s.count, -8, 8));
  auto ref = std::make_shared<std::vector<double>>();
  auto ba = ctx.buffer(as_elements<T>(*a)), bb = ctx.buffer(as_elements<T>(*b));
  auto out = ctx.buffer(s.count * sizeof(T));
  const auto poison = spec::poisoner<T>(out, s.count);
  poison();
  auto bind = [=](MTL::ComputeCommandEncoder* e) {
    spec::set_buffers(e, {ba.get(), bb.get(), out.get()});
    e->setBytes(&s.count, sizeof s.count, 3);
  };
  c->kernel = spec::one_dispatch(ctx, s.kernel, bind, {s.count, 1, 1}, {s.tg, 1, 1},
                                 spec::CaseContext::Grid::threads);
  c->reference = [=] { *ref = s.ref(*a, *b); };
  c->check = [=](spec::CaseResult& r) {
    spec::compare_output("out", spec::contents<T>(out), ref->data(), s.count, s.tolerance, r);
  };
  c->expose("out", out);
  c->poison_again = poison;
  if (s.fast != nullptr) {
    auto fast_out = std::make_shared<std::vector<half_t>>(s.count);
    c->baseline = [=] { s.fast(a->data(), b->data(), fast_out->data(), s.count); };
  }
  return c;
}

}  // namespace metalsim::kernels::elementwise
