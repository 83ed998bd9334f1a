#pragma once
// The usual shape of a prepared case: one or more dispatches, a reference, comparisons of the
// outputs. A spec fills in the parts; most families need nothing more. Also the in-place
// comparison and the small buffer helpers the specs share.
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "kernels/spec/case_context.h"
#include "kernels/spec/compare.h"

namespace metalsim::spec {

class StandardCase : public PreparedCase {
 public:
  std::function<void(CaseResult&)> kernel;  // dispatches; adds the command buffers' reports
  std::function<void()> reference;
  std::function<void(CaseResult&)> check;  // compare_output calls
  std::function<void()> poison_again;      // before the kernel runs again (benchmarks)
  std::function<void()> baseline;          // the fast native baseline (benchmarks), if any

  void run_kernel() override { kernel(run_); }
  void run_reference() override { reference(); }
  CaseResult compare() override {
    CaseResult r;
    r.reports = run_.reports;
    if (!run_.failure.empty()) r.failure = run_.failure;
    check(r);
    finish(r);
    return r;
  }
  bool run_baseline() override {
    if (!baseline) return false;
    baseline();
    return true;
  }
  void repoison() override {
    run_.reports.clear();
    if (poison_again) poison_again();
  }
  // Names an output buffer for outputs() (and keeps it alive with the case).
  void expose(std::string name, const NS::SharedPtr<MTL::Buffer>& buffer) {
    exposed_.push_back({std::move(name), buffer});
  }
  std::vector<OutputView> outputs() const override {
    std::vector<OutputView> views;
    for (const auto& [name, buffer] : exposed_)
      views.push_back({name, buffer->contents(), buffer->length()});
    return views;
  }

 private:
  CaseResult run_;
  std::vector<std::pair<std::string, NS::SharedPtr<MTL::Buffer>>> exposed_;
};

template <class T>
const T* contents(const NS::SharedPtr<MTL::Buffer>& b) {
  return static_cast<const T*>(b->contents());
}

template <class T>
void fill(const NS::SharedPtr<MTL::Buffer>& b, const std::vector<T>& v) {
  std::memcpy(b->contents(), v.data(), v.size() * sizeof(T));
}

// Poisons an output buffer of `n` elements of T, when called: once before the first run, and as
// a case's poison_again.
template <class T>
std::function<void()> poisoner(NS::SharedPtr<MTL::Buffer> b, size_t n) {
  return [b = std::move(b), n] { poison(static_cast<T*>(b->contents()), n); };
}

// A StandardCase::kernel of one dispatch of `kernel` on `ctx` (CaseContext::dispatch), `bind`
// setting its arguments.
inline std::function<void(CaseResult&)> one_dispatch(CaseContext& ctx, std::string kernel,
                                                     CaseContext::Bind bind, MTL::Size grid,
                                                     MTL::Size tg, CaseContext::Grid grid_kind) {
  return [&ctx, kernel = std::move(kernel), bind = std::move(bind), grid, tg,
          grid_kind](CaseResult& r) { ctx.dispatch(kernel, bind, grid, tg, grid_kind, r); };
}

// Binds `buffers` to the kernel's first buffer indices, 0, 1, ... in order, at offset 0.
inline void set_buffers(MTL::ComputeCommandEncoder* e,
                        std::initializer_list<MTL::Buffer*> buffers) {
  NS::UInteger index = 0;
  for (MTL::Buffer* b : buffers) e->setBuffer(b, 0, index++);
}

// Threadgroup memory lengths are multiples of 16 bytes.
inline size_t tg_bytes(size_t bytes) { return (bytes + 15) / 16 * 16; }

}  // namespace metalsim::spec
