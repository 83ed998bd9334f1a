#pragma once
// What the embedding family's half lookups (embedding_spec.cpp) and the float Q4_0 lookup
// (embedding_q4_0_spec.cpp) share: the token ids with their out-of-range ones, the statuses the
// kernel must write, and the lookup's dispatch and comparison, parameterised by the output's
// element type. Each spec generates its own table.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/spec/inputs.h"
#include "kernels/spec/spec_names.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::embedding {

// `count` ids uniform in [0, vocab), then `bad` out-of-range ones at the first and last positions
// in turn: vocab itself, then 0xFFFFFFFF (a -1).
inline std::vector<uint32_t> make_tokens(spec::InputGenerator& gen, uint32_t count, uint32_t vocab,
                                         int64_t bad) {
  std::vector<uint32_t> tokens(count);
  for (uint32_t& id : tokens) id = uint32_t(gen.integer(0, vocab - 1));
  for (int64_t b = 0; b < bad; ++b)
    tokens[b % 2 ? count - 1 - b / 2 : b / 2] = b % 2 ? 0xFFFFFFFFu : vocab;
  return tokens;
}

struct LookupCase {
  std::string kernel;
  uint32_t tokens, vocab, dim, tg;
  float scale;
  Tolerance tolerance;  // of the rows; the statuses are exact
};

// out[t] = table[tokens[t]] * scale in T, and status[t] = 1 for an id >= vocab: the ids and the
// table bound, out and status poisoned, compared with what `reference` computes.
template <class T>
std::unique_ptr<spec::StandardCase> prepare_lookup(
    const LookupCase& s, std::shared_ptr<const std::vector<uint32_t>> tokens,
    NS::SharedPtr<MTL::Buffer> table, std::function<void(std::vector<double>&)> reference,
    spec::CaseContext& ctx) {
  auto ref = std::make_shared<std::vector<double>>();
  auto expected = std::make_shared<std::vector<double>>();
  for (uint32_t id : *tokens) expected->push_back(id >= s.vocab ? 1 : 0);
  const size_t n = size_t(s.tokens) * s.dim;
  auto btok = ctx.buffer(*tokens), out = ctx.buffer(n * sizeof(T)),
       status = ctx.buffer(size_t(s.tokens) * 4);
  const auto poison_out = spec::poisoner<T>(out, n),
             poison_status = spec::poisoner<uint32_t>(status, s.tokens);
  auto c = std::make_unique<spec::StandardCase>();
  c->poison_again = [=] {
    poison_out();
    poison_status();
  };
  c->poison_again();
  struct {
    uint32_t tokens, vocab, dim;
    float scale;
  } args{s.tokens, s.vocab, s.dim, s.scale};
  auto bind = [=](MTL::ComputeCommandEncoder* e) {
    spec::set_buffers(e, {btok.get(), table.get(), out.get(), status.get()});
    e->setBytes(&args, sizeof args, 4);
  };
  c->kernel = spec::one_dispatch(ctx, s.kernel, bind, {s.dim, s.tokens, 1}, {s.tg, 1, 1},
                                 spec::CaseContext::Grid::threads);
  c->reference = [=] { reference(*ref); };
  c->check = [=](CaseResult& r) {
    spec::compare_output("out", spec::contents<T>(out), ref->data(), n, s.tolerance, r);
    spec::compare_output("status", spec::contents<uint32_t>(status), expected->data(), s.tokens,
                         Tolerance{}, r);
  };
  c->expose("out", out);
  c->expose("status", status);
  return c;
}

}  // namespace metalsim::kernels::embedding
