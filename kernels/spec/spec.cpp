#include "kernels/spec/spec.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "kernels/spec/compare.h"
#include "kernels/spec/spec_device.h"

namespace metalsim::spec {
namespace {

std::vector<std::unique_ptr<KernelSpec>>& registry() {
  static std::vector<std::unique_ptr<KernelSpec>> specs;
  return specs;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// ------------------------------ KernelSpec

Params KernelSpec::complete(const Params& p) const {
  Params full = p;
  for (const ParamDef& d : params())
    if (!full.contains(d.name)) full[d.name] = d.fallback;
  return full;
}

CaseResult KernelSpec::run(const Params& given, const RunOptions& options) const {
  const Params p = complete(given);
  CaseResult result;
  std::string why;
  if (!valid(p, &why)) {
    result.failure = "invalid case " + case_id(name(), p) + ": " + why;
    return result;
  }
  try {
    std::unique_ptr<PreparedCase> c = prepare(p, options);
    auto t0 = std::chrono::steady_clock::now();
    c->run_kernel();
    const double kernel = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    c->run_reference();
    const double reference = seconds_since(t0);
    result = c->compare();
    result.kernel_seconds = kernel;
    result.reference_seconds = reference;
  } catch (const std::exception& e) {
    result.passed = false;
    result.failure = std::string("harness error: ") + e.what();
  }
  return result;
}

// ------------------------------ case ids

std::string case_id(const std::string& spec, const Params& p) {
  std::string id = spec + "(";
  bool first = true;
  for (const auto& [k, v] : p) {
    if (!first) id += ",";
    id += k + "=" + std::to_string(v);
    first = false;
  }
  return id + ")";
}

bool parse_case_id(const std::string& text, std::string& spec, Params& p) {
  p.clear();
  const size_t open = text.find('(');
  if (open == std::string::npos) {
    spec = text;
    return !spec.empty();
  }
  if (text.back() != ')') return false;
  spec = text.substr(0, open);
  std::string body = text.substr(open + 1, text.size() - open - 2);
  while (!body.empty()) {
    const size_t comma = body.find(',');
    const std::string item = body.substr(0, comma);
    body = comma == std::string::npos ? "" : body.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    try {
      size_t used = 0;
      const std::string value = item.substr(eq + 1);
      p[item.substr(0, eq)] = std::stoll(value, &used);
      if (used != value.size()) return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  return !spec.empty();
}

// ------------------------------ registry

void SpecRegistry::add(std::unique_ptr<KernelSpec> spec) { registry().push_back(std::move(spec)); }

const KernelSpec* SpecRegistry::find(const std::string& name) {
  for (const auto& s : registry())
    if (s->name() == name) return s.get();
  return nullptr;
}

std::vector<const KernelSpec*> SpecRegistry::all() {
  std::vector<const KernelSpec*> out;
  for (const auto& s : registry()) out.push_back(s.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name() < b->name(); });
  return out;
}

// ------------------------------ comparison and device

void finish(CaseResult& result) {
  std::string why;
  if (!result.reports.empty()) why = std::string(check::check_name(result.reports.front().check)) +
                                     ": " + result.reports.front().message;
  else if (result.unwritten > 0) why = std::to_string(result.unwritten) + " output elements never written (" + result.worst + ")";
  else if (result.non_finite > 0) why = std::to_string(result.non_finite) + " non-finite outputs (" + result.worst + ")";
  else if (result.max_error > 1) why = "error " + std::to_string(result.max_error) + "x the tolerance at " + result.worst;
  else if (result.elements == 0) why = "no output was compared";
  result.passed = why.empty();
  if (result.failure.empty()) result.failure = why;
}

SpecDevice::SpecDevice()
    : device_(NS::TransferPtr(MTL::CreateSystemDefaultDevice())),
      queue_(NS::TransferPtr(device_->newCommandQueue())),
      library_(NS::TransferPtr(device_->newDefaultLibrary())) {}

SpecDevice& SpecDevice::get() {
  static SpecDevice device;
  return device;
}

MTL::ComputePipelineState* SpecDevice::pipeline(const std::string& kernel) {
  std::lock_guard lock(mutex_);
  auto& slot = pipelines_[kernel];
  if (!slot) {
    auto fn = NS::TransferPtr(library_->newFunction(kernel.c_str()));
    if (!fn) throw std::runtime_error("no kernel named '" + kernel + "' is linked");
    NS::Error* error = nullptr;
    slot = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &error));
    if (!slot) throw std::runtime_error("pipeline for '" + kernel + "' failed");
  }
  return slot.get();
}

MTL::CommandBuffer* SpecDevice::command_buffer(const engine::ExecutionOptions& options) {
  device_->executionOptions() = options;
  return queue_->commandBuffer();
}

void SpecDevice::finish(MTL::CommandBuffer* cb, CaseResult& result) {
  cb->commit();
  cb->waitUntilCompleted();
  for (const auto& r : cb->reports()) result.reports.push_back(r);
}

}  // namespace metalsim::spec
