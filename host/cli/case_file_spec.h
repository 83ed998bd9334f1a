#pragma once
// CaseFileSpec: a KernelSpec read from a case file (case_file.h), so that the one case runner,
// the checks, the fuzzer and its shrinking serve a user's kernel as they serve the built-in
// ones. What it adds is what a spec written in C++ would write by hand:
//   - inputs from each buffer's fill (seeded per buffer from the case's seed), outputs poisoned;
//   - the kernel specialised with the case's function constants (Library::newFunction with
//     MTL::FunctionConstantValues) and dispatched with the case's grid, threadgroup size,
//     buffers at their offsets, aliases, bytes and threadgroup memory;
//   - a reference: another kernel of the file, or a C function in a shared object
//     (metalsim/case_reference.h), compared within the tolerance;
//   - oracles that need no reference: the outputs must be the same when the case runs again
//     reversed and on another number of workers (race.schedule otherwise), and for every value
//     of a parameter declared equivalent; every output element must be written; no NaN.
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "host/cli/case_file.h"
#include "kernels/spec/spec.h"
#include "metalsim/Metal.hpp"
#include "metalsim/case_reference.h"

namespace metalsim::cli {

// One output buffer after the main run, for `metalsim run --save/--print`.
struct OutputData {
  std::string name;
  ElementType type;
  const void* data;
  size_t count;
};
// Element i in words ("0.25", "-3").
std::string format_element(const OutputData& o, size_t i);
using OutputSink = std::function<void(const std::vector<OutputData>&)>;

class CaseFileSpec : public spec::KernelSpec {
 public:
  // Finds the kernel (and a reference kernel or function) and checks the case file's bindings
  // against the kernel's arguments; throws CaseFileError naming the field on any mismatch.
  explicit CaseFileSpec(CaseFile file);

  std::string name() const override { return file_.name; }
  std::string family() const override { return "case file"; }
  std::string summary() const override { return file_.summary; }
  std::vector<spec::ParamDef> params() const override { return file_.params; }
  bool valid(const spec::Params& p, std::string* why) const override;
  std::vector<spec::Params> sweep() const override { return file_.sweep; }
  spec::Footprint footprint(const spec::Params& p) const override;
  std::unique_ptr<spec::PreparedCase> prepare(const spec::Params& p,
                                              spec::CaseContext& ctx) const override;
  std::string run_arguments(const spec::Params& p) const override;

  const CaseFile& file() const { return file_; }
  // Called once, with the outputs of the first case run after this call (its main run).
  void on_outputs(OutputSink sink) const;

  // What the prepared cases use.
  MTL::Function* function(const std::string& kernel) const;
  // `kernel` specialised with the case file's function constants evaluated in `scope`
  // (Library::newFunction with MTL::FunctionConstantValues); the plain function when the case
  // file sets none. Throws std::runtime_error when Metal's newFunction would fail.
  NS::SharedPtr<MTL::Function> specialised(const std::string& kernel, const Scope& scope) const;
  metalsim_case_reference_fn reference_function() const { return reference_fn_; }
  void deliver_outputs(const std::vector<OutputData>& outputs) const;

 private:
  void load_library();
  void load_kernels();
  void name_buffers();
  void resolve_aliases();
  // Against the declarations `declared` (the kernel's, or those its source lists before any
  // compile); again from the start when called again.
  void resolve_function_constants(std::span<const abi::FunctionConstantInfo> declared);
  // `kernel` specialised with the case file's constants evaluated in `scope` (none given: every
  // constant undefined); throws std::runtime_error as specialised.
  NS::SharedPtr<MTL::Function> specialised_with(const std::string& kernel,
                                                const Scope& scope) const;
  // The function constants' bytes in `scope`, by [[function_constant(N)]] index (empty: unset).
  std::vector<Bytes> constant_values(const Scope& scope) const;
  void check_bindings(const std::string& kernel, const char* field) const;
  void check_bytes_sizes(const abi::KernelInfo& k) const;

  // A function constant of the case file, resolved against the kernel's declarations.
  struct Constant {
    uint32_t index;
    MTL::DataType type;
    BytesField value;  // one field: its layout is the constant's bytes
  };

  CaseFile file_;
  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::Library> library_;
  NS::SharedPtr<MTL::Function> kernel_fn_, reference_kernel_fn_;
  void* reference_library_ = nullptr;  // dlopen handle, kept for the process's life
  metalsim_case_reference_fn reference_fn_ = nullptr;
  std::vector<Constant> constants_;
  mutable std::mutex sink_mutex_;
  mutable OutputSink sink_;
};

}  // namespace metalsim::cli
