#pragma once
// Host-side pieces shared by the elementwise, softmax, quantized_matmul and embedding specs:
// a PreparedCase made of three functions, one dispatch, and the in-place "never written"
// check. (A candidate for kernels/spec/ once other families want it.)
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/spec/compare.h"
#include "kernels/spec/spec_device.h"

namespace metalsim::kernels {

using spec::CaseResult;
using spec::half_t;

// run_kernel/run_reference/compare as three functions; compare starts from the kernel's
// reports and finish() is applied after it.
class FunctionCase : public spec::PreparedCase {
 public:
  std::function<void(CaseResult&)> kernel;  // dispatch; adds the command buffer's reports
  std::function<void()> reference;
  std::function<void(CaseResult&)> check;   // compare_output calls
  std::function<void()> poison_again;

  void run_kernel() override { kernel(run_); }
  void run_reference() override { reference(); }
  CaseResult compare() override {
    CaseResult r;
    r.reports = run_.reports;
    if (!run_.failure.empty()) r.failure = run_.failure;
    check(r);
    spec::finish(r);
    return r;
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
    for (const auto& [name, buffer] : exposed_) views.push_back({name, buffer->contents(), buffer->length()});
    return views;
  }

 private:
  CaseResult run_;
  std::vector<std::pair<std::string, NS::SharedPtr<MTL::Buffer>>> exposed_;
};

// Encodes one dispatch of `kernel` (bind sets its arguments), commits, waits, keeps reports.
// by_threads: dispatchThreads (partial edge threadgroups) rather than dispatchThreadgroups.
inline void dispatch(const spec::RunOptions& o, const std::string& kernel,
                     const std::function<void(MTL::ComputeCommandEncoder*)>& bind, MTL::Size grid,
                     MTL::Size tg, bool by_threads, CaseResult& r) {
  auto& dev = spec::SpecDevice::get();
  MTL::ComputePipelineState* pso = dev.pipeline(kernel);
  MTL::CommandBuffer* cb = dev.command_buffer(o.execution);
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso);
  bind(enc);
  if (by_threads) enc->dispatchThreads(grid, tg);
  else enc->dispatchThreadgroups(grid, tg);
  enc->endEncoding();
  spec::SpecDevice::finish(cb, r);
}

template <class T>
const T* contents(const NS::SharedPtr<MTL::Buffer>& b) {
  return static_cast<const T*>(b->contents());
}

template <class T>
void fill(const NS::SharedPtr<MTL::Buffer>& b, const std::vector<T>& v) {
  std::memcpy(b->contents(), v.data(), v.size() * sizeof(T));
}

// Threadgroup memory lengths are multiples of 16 bytes.
inline size_t tg_bytes(size_t bytes) { return (bytes + 15) / 16 * 16; }

// An in-place kernel's output cannot be poisoned (it holds the input). An element still holding
// its input bits where the reference, rounded to half, differs from the input was never
// written: it is compared as poison. Elements whose correct value equals the input can't be told
// apart, and need not be.
inline void compare_in_place(const std::string& name, const half_t* got, const std::vector<half_t>& original,
                             const std::vector<double>& ref, const spec::Tolerance& tol, CaseResult& r) {
  std::vector<half_t> seen(got, got + original.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    const half_t rounded = half_t(ref[i]);
    if (std::memcmp(&seen[i], &original[i], 2) == 0 && std::memcmp(&rounded, &original[i], 2) != 0)
      spec::poison(&seen[i], 1);
  }
  spec::compare_output(name, seen.data(), ref.data(), seen.size(), tol, r);
}

}  // namespace metalsim::kernels
