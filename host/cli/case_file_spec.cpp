#include "host/cli/case_file_spec.h"

#include <dlfcn.h>

#include <algorithm>

#include "host/cli/case_file_data.h"
#include "host/cli/case_file_run.h"
#include "simt/abi/kernel.h"

namespace metalsim::cli {

std::string format_element(const OutputData& o, size_t i) {
  return format_value(o.type, o.data, i);
}

CaseFileSpec::CaseFileSpec(CaseFile file)
    : file_(std::move(file)), device_(NS::TransferPtr(MTL::CreateSystemDefaultDevice())) {
  load_kernels();
  name_buffers();
  check_bindings(file_.kernel, "kernel");
  if (file_.reference.kind == Reference::Kind::kernel)
    check_bindings(file_.reference.kernel, "reference.kernel");
}

// The program's kernels, or the case file's source compiled at run time (Device::newLibrary).
void CaseFileSpec::load_library() {
  if (file_.source.empty()) {
    library_ = NS::TransferPtr(device_->newDefaultLibrary());
    return;
  }
  NS::Error* error = nullptr;
  const NS::URL* url = NS::URL::fileURLWithPath(NS::String::string(file_.source.c_str()));
  auto options = NS::TransferPtr(MTL::CompileOptions::alloc()->init());
  options->setMathMode(file_.math_mode == "safe"      ? MTL::MathModeSafe
                       : file_.math_mode == "relaxed" ? MTL::MathModeRelaxed
                                                      : MTL::MathModeFast);
  library_ = NS::TransferPtr(device_->newLibrary(url, options.get(), &error));
  if (!library_)
    throw CaseFileError(
        file_.origin + ": source: " + file_.source + " does not compile" +
        (error ? std::string(":\n") + error->localizedDescription()->utf8String() : std::string()));
}

void CaseFileSpec::load_kernels() {
  load_library();
  auto find = [&](const std::string& kernel, const char* field) {
    auto fn = NS::TransferPtr(library_->newFunction(kernel.c_str()));
    if (!fn)
      throw CaseFileError(file_.origin + ": " + field + ": no kernel named '" + kernel + "' " +
                          (file_.source.empty()
                               ? "is linked into this program (name the .metal file in \"source\")"
                               : "in " + file_.source));
    return fn;
  };
  kernel_fn_ = find(file_.kernel, "kernel");
  if (file_.reference.kind == Reference::Kind::kernel)
    reference_kernel_fn_ = find(file_.reference.kernel, "reference.kernel");
  if (file_.reference.kind != Reference::Kind::function) return;
  // The path is the case file's folder's (case_file.cpp's resolve); a bare name (a case file
  // named from its own folder) must not send dlopen to the system's library folders.
  std::string library = file_.reference.library;
  if (library.find('/') == std::string::npos) library = "./" + library;
  reference_library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (reference_library_ == nullptr)
    throw CaseFileError(file_.origin + ": reference.library: cannot load " +
                        file_.reference.library + ": " + dlerror());
  reference_fn_ = reinterpret_cast<metalsim_case_reference_fn>(
      dlsym(reference_library_, file_.reference.function.c_str()));
  if (reference_fn_ == nullptr)
    throw CaseFileError(file_.origin + ": reference.function: " + file_.reference.library +
                        " has no function '" + file_.reference.function +
                        "' (declare it extern \"C\")");
}

// A buffer the case file leaves unnamed takes its kernel argument's name.
void CaseFileSpec::name_buffers() {
  for (BufferDecl& b : file_.buffers) {
    if (!b.name.empty()) continue;
    b.name = "buffer" + std::to_string(b.index);
    for (const engine::ArgInfo& a : kernel_fn_->kernel().args)
      if (a.index == b.index &&
          (a.kind == engine::ArgKind::DeviceBuffer || a.kind == engine::ArgKind::ConstantBuffer))
        b.name = a.name;
  }
}

// Every binding of the case file against the kernel's arguments, both ways.
void CaseFileSpec::check_bindings(const std::string& kernel, const char* field) const {
  const engine::KernelInfo& k = function(kernel)->kernel();
  auto fail = [&](const std::string& where, const std::string& what) {
    throw CaseFileError(file_.origin + ": " + where + ": " + what);
  };
  auto arg_at = [&](engine::ArgKind kind, uint32_t index) -> const engine::ArgInfo* {
    for (const engine::ArgInfo& a : k.args)
      if (a.index == index && (a.kind == kind || (kind == engine::ArgKind::DeviceBuffer &&
                                                  a.kind == engine::ArgKind::ConstantBuffer)))
        return &a;
    return nullptr;
  };
  const std::string in = " of kernel '" + kernel + "'";
  for (size_t i = 0; i < file_.buffers.size(); ++i) {
    const BufferDecl& b = file_.buffers[i];
    const std::string where = "buffers[" + std::to_string(i) + "]";
    const engine::ArgInfo* a = arg_at(engine::ArgKind::DeviceBuffer, b.index);
    if (a == nullptr)
      fail(where + ".index",
           "no argument" + in + " is [[buffer(" + std::to_string(b.index) + ")]]");
    const size_t size = element_size(b.type);
    if (a->element_size != 0 && a->element_size % size != 0)
      fail(where + ".type", std::string(element_type_name(b.type)) + " (" + std::to_string(size) +
                                " bytes) does not tile argument '" + a->name + "' (" + a->type +
                                ", " + std::to_string(a->element_size) + "-byte elements)");
    if (b.output && a->is_const)
      fail(where + ".output", "argument '" + std::string(a->name) + "' (" + a->type + ") is const");
  }
  for (size_t i = 0; i < file_.bytes.size(); ++i)
    if (const engine::ArgInfo* a = arg_at(engine::ArgKind::DeviceBuffer, file_.bytes[i].index);
        a == nullptr || !a->is_const)
      fail("bytes[" + std::to_string(i) + "].index",
           a == nullptr
               ? "no argument" + in + " is [[buffer(" + std::to_string(file_.bytes[i].index) + ")]]"
               : "argument '" + std::string(a->name) +
                     "' is writable: setBytes needs a constant or const argument");
  for (const engine::ArgInfo& a : k.args) {
    // A case file sets no function constants: an argument whose condition is false with none
    // set does not exist (Metal drops it), and needs no binding.
    if (!engine::argument_exists(a, {})) continue;
    const bool buffer =
        a.kind == engine::ArgKind::DeviceBuffer || a.kind == engine::ArgKind::ConstantBuffer;
    const bool bound =
        buffer ? std::any_of(file_.buffers.begin(), file_.buffers.end(),
                             [&](auto& b) { return b.index == a.index; }) ||
                     std::any_of(file_.bytes.begin(), file_.bytes.end(),
                                 [&](auto& b) { return b.index == a.index; })
               : a.kind != engine::ArgKind::Threadgroup ||
                     std::any_of(file_.threadgroup_memory.begin(), file_.threadgroup_memory.end(),
                                 [&](auto& t) { return t.index == a.index; });
    if (!bound)
      fail(field, "argument '" + std::string(a.name) + "' (" + a.type + " [[" +
                      (buffer ? "buffer(" : "threadgroup(") + std::to_string(a.index) + ")]])" +
                      in + " is bound by nothing in " +
                      (buffer ? "buffers or bytes" : "threadgroup_memory"));
  }
}

MTL::Function* CaseFileSpec::function(const std::string& kernel) const {
  return kernel == file_.kernel ? kernel_fn_.get() : reference_kernel_fn_.get();
}

bool CaseFileSpec::valid(const spec::Params& p, std::string* why) const {
  auto no = [&](std::string what) {
    if (why) *why = std::move(what);
    return false;
  };
  for (const spec::ParamDef& d : file_.params) {
    const int64_t v = p.at(d.name);
    const bool allowed = d.choices.empty() ? v >= d.min && v <= d.max
                                           : std::count(d.choices.begin(), d.choices.end(), v) > 0;
    if (!allowed) return no(d.name + "=" + std::to_string(v) + " is outside the parameter's range");
  }
  try {
    for (const Expression& c : file_.constraints)
      if (!c.evaluate(p)) return no("constraint '" + c.text() + "' does not hold");
    const Shape s = evaluate_shape(file_, p, file_.dispatch);
    const MTL::Size& g = s.grid;
    const MTL::Size& t = s.threadgroup;
    if (g.width < 1 || g.height < 1 || g.depth < 1) return no("the grid has a zero dimension");
    if (t.width < 1 || t.height < 1 || t.depth < 1)
      return no("the threadgroup has a zero dimension");
    if (t.width * t.height * t.depth > 1024) return no("more than 1024 threads per threadgroup");
    uint64_t tg_memory = 0;
    for (uint32_t n : s.threadgroup_lengths) tg_memory += n;
    if (tg_memory > 32768) return no("more than 32 KiB of threadgroup memory");
  } catch (const std::exception& e) {
    return no(e.what());
  }
  return true;
}

spec::Footprint CaseFileSpec::footprint(const spec::Params& p) const {
  spec::Footprint f;
  try {
    const Shape s = evaluate_shape(file_, p, file_.dispatch);
    for (size_t i = 0; i < file_.buffers.size(); ++i) {
      const uint64_t bytes = s.counts[i] * element_size(file_.buffers[i].type);
      f.device += 2 * bytes;              // the main run's, and one oracle's or the reference's
      f.host += bytes + 8 * s.counts[i];  // the initial copy; doubles for a reference function
    }
  } catch (const std::exception&) {
  }
  return f;
}

std::unique_ptr<spec::PreparedCase> CaseFileSpec::prepare(const spec::Params& p,
                                                          spec::CaseContext& ctx) const {
  return prepare_case_file_run(*this, p, ctx);
}

std::string CaseFileSpec::run_arguments(const spec::Params& p) const {
  std::string args = file_.command;
  for (const auto& [k, v] : p) args += " --" + k + "=" + std::to_string(v);
  return args;
}

void CaseFileSpec::on_outputs(OutputSink sink) const {
  std::lock_guard lock(sink_mutex_);
  sink_ = std::move(sink);
}

void CaseFileSpec::deliver_outputs(const std::vector<OutputData>& outputs) const {
  OutputSink sink;
  {
    std::lock_guard lock(sink_mutex_);
    std::swap(sink, sink_);
  }
  if (sink) sink(outputs);
}

}  // namespace metalsim::cli
