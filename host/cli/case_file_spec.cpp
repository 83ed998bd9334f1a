#include "host/cli/case_file_spec.h"

#include <dlfcn.h>

#include <algorithm>
#include <optional>
#include <span>

#include "host/cli/case_file_data.h"
#include "host/cli/case_file_run.h"
#include "simt/abi/argument_reads.h"
#include "simt/abi/kernel.h"

namespace metalsim::cli {

std::string format_element(const OutputData& o, size_t i) {
  return format_value(o.type, o.data, i);
}

CaseFileSpec::CaseFileSpec(CaseFile file)
    : file_(std::move(file)), device_(NS::TransferPtr(MTL::CreateSystemDefaultDevice())) {
  load_kernels();
  name_buffers();
  resolve_aliases();
  resolve_function_constants(kernel_fn_->kernel().function_constants);
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
  options->setIncludeDirectories(file_.include_dirs);
  library_ = NS::TransferPtr(device_->newLibrary(url, options.get(), &error));
  if (!library_)
    throw CaseFileError(
        file_.origin + ": source: " + file_.source + " does not compile" +
        (error ? std::string(":\n") + error->localizedDescription()->utf8String() : std::string()));
}

void CaseFileSpec::load_kernels() {
  load_library();
  // A source compiled at run time knows the function constants it declares before compiling
  // anything: a kernel is then compiled once, specialised with the case file's values at the
  // parameters' defaults (as the cases run it: Metal makes no pipeline of an unspecialised
  // function that uses constants), not first unspecialised and then again specialised. Where
  // that fails, the unspecialised compile below and check_bindings say why, as before.
  const std::vector<abi::FunctionConstantInfo>* declared =
      file_.source.empty() ? nullptr : library_->declaredFunctionConstants();
  std::optional<Scope> defaults;
  if (declared != nullptr && !declared->empty()) {
    try {
      resolve_function_constants(*declared);
      spec::Params params;
      for (const spec::ParamDef& d : file_.params) params[d.name] = d.fallback;
      defaults = case_scope(file_, params);
    } catch (const std::exception&) {
      defaults.reset();  // reported as before, after the unspecialised compile
    }
  }
  auto find = [&](const std::string& kernel, const char* field) {
    if (defaults) {
      NS::SharedPtr<MTL::Function> fn;
      try {
        fn = specialised_with(kernel, *defaults);
      } catch (const std::runtime_error&) {
      }
      if (fn) return fn;
    }
    // A source compiled at run time compiles the kernel here (newFunction), and may fail to.
    NS::Error* error = nullptr;
    auto fn =
        NS::TransferPtr(library_->newFunction(NS::String::string(kernel.c_str()), nullptr, &error));
    if (!fn && error != nullptr && error->code() == MTL::LibraryErrorCompileFailure)
      throw CaseFileError(file_.origin + ": " + field + ": " + kernel + " in " + file_.source +
                          " does not compile:\n" + error->localizedDescription()->utf8String());
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
    for (const abi::ArgInfo& a : kernel_fn_->kernel().args)
      if (a.index == b.index &&
          (a.kind == abi::ArgKind::DeviceBuffer || a.kind == abi::ArgKind::ConstantBuffer))
        b.name = a.name;
  }
}

// An alias names a buffer of the case file: by its "name", or by the kernel argument's name
// that an unnamed buffer took.
void CaseFileSpec::resolve_aliases() {
  for (AliasDecl& a : file_.aliases) {
    const auto it = std::find_if(file_.buffers.begin(), file_.buffers.end(),
                                 [&](const BufferDecl& b) { return b.name == a.target; });
    if (it == file_.buffers.end()) {
      std::string names;
      for (const BufferDecl& b : file_.buffers) names += (names.empty() ? "" : ", ") + b.name;
      throw CaseFileError(file_.origin + ": " + a.path + ".alias: no buffer is named '" + a.target +
                          "' (the buffers: " + names + ")");
    }
    a.buffer = size_t(it - file_.buffers.begin());
  }
}

namespace {

// Whether a buffer bound to `arg` must tile its element type. A pointer to bytes (`device const
// char *`, as every ggml argument is) or to void carries none: the kernel casts it, and the
// buffer's own type says what the data is.
bool carries_element_type(const abi::ArgInfo& arg) { return arg.element_size > 1; }

// The MTL::DataType of a function constant's type; DataTypeNone where Metal has none that
// metalsim knows.
MTL::DataType data_type(const MslType& t) {
  struct Row {
    ElementType scalar;
    MTL::DataType types[4];  // by lanes - 1
  };
  static constexpr Row kRows[] = {
      {ElementType::f32,
       {MTL::DataTypeFloat, MTL::DataTypeFloat2, MTL::DataTypeFloat3, MTL::DataTypeFloat4}},
      {ElementType::f16,
       {MTL::DataTypeHalf, MTL::DataTypeHalf2, MTL::DataTypeHalf3, MTL::DataTypeHalf4}},
      {ElementType::i32,
       {MTL::DataTypeInt, MTL::DataTypeInt2, MTL::DataTypeInt3, MTL::DataTypeInt4}},
      {ElementType::u32,
       {MTL::DataTypeUInt, MTL::DataTypeUInt2, MTL::DataTypeUInt3, MTL::DataTypeUInt4}},
      {ElementType::i16, {MTL::DataTypeShort}},
      {ElementType::u16, {MTL::DataTypeUShort}},
      {ElementType::i8, {MTL::DataTypeChar}},
      {ElementType::u8, {MTL::DataTypeUChar}},
      {ElementType::i64, {MTL::DataTypeLong}},
      {ElementType::u64, {MTL::DataTypeULong}},
  };
  if (t.boolean) return t.lanes == 1 ? MTL::DataTypeBool : MTL::DataTypeNone;
  if (t.packed || t.array > 0) return MTL::DataTypeNone;
  for (const Row& r : kRows)
    if (r.scalar == t.scalar) return r.types[t.lanes - 1];
  return MTL::DataTypeNone;
}

std::string declared_constants(std::span<const abi::FunctionConstantInfo> declared) {
  std::string out;
  for (const abi::FunctionConstantInfo& fc : declared)
    out += (out.empty() ? "" : ", ") + std::string(fc.type) + " " + fc.name +
           " [[function_constant(" + std::to_string(fc.index) + ")]]";
  return out.empty() ? "none" : out;
}

// The declaration a function constant of the case file names, by name or by index.
const abi::FunctionConstantInfo& declaration(std::span<const abi::FunctionConstantInfo> declared,
                                             const FunctionConstantDecl& d,
                                             const std::string& origin) {
  for (const abi::FunctionConstantInfo& fc : declared)
    if (d.name.empty() ? int64_t(fc.index) == d.index : d.name == fc.name) return fc;
  throw CaseFileError(
      origin + ": " + d.path + (d.name.empty() ? ".index" : ".name") +
      ": the source declares no function constant " +
      (d.name.empty() ? "with index " + std::to_string(d.index) : "'" + d.name + "'") +
      " (it declares: " + declared_constants(declared) + ")");
}

// The type of the constant: the declaration's, or the case file's where it says the same (or
// where the declaration's type is one the case file cannot name, of the same size).
MslType constant_type(const abi::FunctionConstantInfo& fc, const FunctionConstantDecl& d,
                      const std::string& origin) {
  auto fail = [&](const std::string& where, const std::string& what) {
    throw CaseFileError(origin + ": " + d.path + where + ": '" + fc.name + "' " + what);
  };
  MslType declared, type;
  const bool known = parse_msl_type(fc.type, declared);
  if (!known && d.type.empty())
    fail("", "is declared as " + std::string(fc.type) +
                 ", which the case file must name: give "
                 "\"type\"");
  parse_msl_type(d.type.empty() ? fc.type : d.type, type);
  if (known && declared.name() != type.name())
    fail(".type", "is declared " + declared.name() + ", not " + type.name());
  if (msl_size_align(type).size != fc.size)
    fail(".type", "(" + std::string(fc.type) + ") is " + std::to_string(fc.size) + " bytes, " +
                      type.name() + " " + std::to_string(msl_size_align(type).size));
  if (data_type(type) == MTL::DataTypeNone)
    fail(".type", "is " + type.name() + ", for which metalsim knows no MTLDataType");
  return type;
}

}  // namespace

// Each of the case file's function constants against the file's declarations: the one it
// names, its type, its number of values; each constant given once.
void CaseFileSpec::resolve_function_constants(std::span<const abi::FunctionConstantInfo> declared) {
  constants_.clear();
  for (const FunctionConstantDecl& d : file_.function_constants) {
    const abi::FunctionConstantInfo& fc = declaration(declared, d, file_.origin);
    const MslType type = constant_type(fc, d, file_.origin);
    if (d.values.size() != type.values())
      throw CaseFileError(file_.origin + ": " + d.path + ".value: " + type.name() + " needs " +
                          std::to_string(type.values()) +
                          (type.values() == 1 ? " value" : " values (a list)"));
    if (std::any_of(constants_.begin(), constants_.end(),
                    [&](const Constant& c) { return c.index == fc.index; }))
      throw CaseFileError(file_.origin + ": " + d.path + ": '" + fc.name + "' is given twice");
    BytesField value;
    value.type = type;
    value.values = d.values;
    value.path = d.path + ".value";
    constants_.push_back({fc.index, data_type(type), std::move(value)});
  }
}

std::vector<Bytes> CaseFileSpec::constant_values(const Scope& scope) const {
  std::vector<Bytes> out;
  for (const Constant& c : constants_) {
    if (out.size() <= c.index) out.resize(c.index + 1);
    out[c.index] = pack_struct({c.value}, scope);
  }
  return out;
}

NS::SharedPtr<MTL::Function> CaseFileSpec::specialised(const std::string& kernel,
                                                       const Scope& scope) const {
  // A kernel that uses no function constant runs as newFunction(name) gives it; one that does
  // is specialised, with none given when the case file gives none (Metal makes no pipeline of
  // the unspecialised function). One that load_kernels compiled specialised already reports no
  // constants: with none in the case file, it is the function for every case.
  if (constants_.empty() && function(kernel)->functionConstantsDictionary()->count() == 0)
    return NS::RetainPtr(function(kernel));
  return specialised_with(kernel, scope);
}

NS::SharedPtr<MTL::Function> CaseFileSpec::specialised_with(const std::string& kernel,
                                                            const Scope& scope) const {
  auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  const std::vector<Bytes> bytes = constant_values(scope);
  for (const Constant& c : constants_)
    values->setConstantValue(bytes[c.index].data(), c.type, c.index);
  NS::Error* error = nullptr;
  auto fn = NS::TransferPtr(
      library_->newFunction(NS::String::string(kernel.c_str()), values.get(), &error));
  if (!fn)
    throw std::runtime_error(
        "newFunction('" + kernel + "') with the function constants failed" +
        (error ? std::string(": ") + error->localizedDescription()->utf8String() : std::string()));
  return fn;
}

// setBytes of fewer or other bytes than the argument's type takes is a layout mismatch: the
// case file's struct against the kernel's (`constant Args& args`: exactly its size;
// `constant T* p`: whole elements).
void CaseFileSpec::check_bytes_sizes(const abi::KernelInfo& k) const {
  for (size_t i = 0; i < file_.bytes.size(); ++i) {
    const auto a = std::find_if(k.args.begin(), k.args.end(), [&](const abi::ArgInfo& x) {
      return x.index == file_.bytes[i].index &&
             (x.kind == abi::ArgKind::DeviceBuffer || x.kind == abi::ArgKind::ConstantBuffer);
    });
    if (a == k.args.end() || a->element_size == 0) continue;
    const size_t size = layout_struct(file_.bytes[i].fields).size;
    if (a->is_reference ? size == a->element_size : size % a->element_size == 0) continue;
    throw CaseFileError(file_.origin + ": bytes[" + std::to_string(i) + "]: the values take " +
                        std::to_string(size) + " bytes as MSL lays them out; argument '" + a->name +
                        "' (" + a->type + ") is " + std::to_string(a->element_size) +
                        (a->is_reference ? " bytes" : "-byte elements") + " in kernel '" + k.name +
                        "'");
  }
}

// Every binding of the case file against the kernel's arguments, both ways.
void CaseFileSpec::check_bindings(const std::string& kernel, const char* field) const {
  const abi::KernelInfo& k = function(kernel)->kernel();
  auto fail = [&](const std::string& where, const std::string& what) {
    throw CaseFileError(file_.origin + ": " + where + ": " + what);
  };
  auto arg_at = [&](abi::ArgKind kind, uint32_t index) -> const abi::ArgInfo* {
    for (const abi::ArgInfo& a : k.args)
      if (a.index == index && (a.kind == kind || (kind == abi::ArgKind::DeviceBuffer &&
                                                  a.kind == abi::ArgKind::ConstantBuffer)))
        return &a;
    return nullptr;
  };
  const std::string in = " of kernel '" + kernel + "'";
  for (size_t i = 0; i < file_.buffers.size(); ++i) {
    const BufferDecl& b = file_.buffers[i];
    const std::string& where = b.path;
    const abi::ArgInfo* a = arg_at(abi::ArgKind::DeviceBuffer, b.index);
    if (a == nullptr)
      fail(where + ".index",
           "no argument" + in + " is [[buffer(" + std::to_string(b.index) + ")]]");
    const size_t size = element_size(b.type);
    if (carries_element_type(*a) && a->element_size % size != 0)
      fail(where + ".type", std::string(element_type_name(b.type)) + " (" + std::to_string(size) +
                                " bytes) does not tile argument '" + a->name + "' (" + a->type +
                                ", " + std::to_string(a->element_size) + "-byte elements)");
    if (b.output && a->is_const)
      fail(where + ".output", "argument '" + std::string(a->name) + "' (" + a->type + ") is const");
  }
  for (const AliasDecl& alias : file_.aliases) {
    const abi::ArgInfo* a = arg_at(abi::ArgKind::DeviceBuffer, alias.index);
    if (a == nullptr)
      fail(alias.path + ".index",
           "no argument" + in + " is [[buffer(" + std::to_string(alias.index) + ")]]");
    const ElementType type = file_.buffers[alias.buffer].type;
    if (carries_element_type(*a) && a->element_size % element_size(type) != 0)
      fail(alias.path + ".alias", "'" + alias.target + "' (" +
                                      std::string(element_type_name(type)) +
                                      ") does not tile argument '" + a->name + "' (" + a->type +
                                      ", " + std::to_string(a->element_size) + "-byte elements)");
  }
  check_bytes_sizes(k);
  for (size_t i = 0; i < file_.bytes.size(); ++i)
    if (const abi::ArgInfo* a = arg_at(abi::ArgKind::DeviceBuffer, file_.bytes[i].index);
        a == nullptr || !a->is_const)
      fail("bytes[" + std::to_string(i) + "].index",
           a == nullptr
               ? "no argument" + in + " is [[buffer(" + std::to_string(file_.bytes[i].index) + ")]]"
               : "argument '" + std::string(a->name) +
                     "' is writable: setBytes needs a constant or const argument");
  // An argument whose function constant is false (with the parameters' defaults; unset is
  // false) does not exist (Metal drops it), and one the specialised function never reads is
  // inactive: neither needs a binding. The specialised function's reads, not the unspecialised
  // one's: a library compiled at run time folds the constants, so an argument read only under
  // other values is inactive under these.
  spec::Params defaults;
  for (const spec::ParamDef& d : file_.params) defaults[d.name] = d.fallback;
  std::vector<Bytes> values;
  NS::SharedPtr<MTL::Function> fn;
  try {
    const Scope scope = case_scope(file_, defaults);
    if (!constants_.empty()) values = constant_values(scope);
    fn = specialised(kernel, scope);
  } catch (const ExpressionError& e) {
    fail("function_constants",
         std::string("evaluated with the parameters' defaults, to know which arguments exist: ") +
             e.what());
  } catch (const std::runtime_error& e) {
    fail("function_constants", e.what());
  }
  const abi::KernelInfo& used = fn->kernel();
  std::vector<const void*> constants;
  for (const Bytes& v : values) constants.push_back(v.empty() ? nullptr : v.data());
  for (const abi::ArgInfo& a : used.args) {
    if (!abi::argument_active(used, a, constants)) continue;
    const bool buffer =
        a.kind == abi::ArgKind::DeviceBuffer || a.kind == abi::ArgKind::ConstantBuffer;
    const bool bound =
        buffer ? std::any_of(file_.buffers.begin(), file_.buffers.end(),
                             [&](auto& b) { return b.index == a.index; }) ||
                     std::any_of(file_.aliases.begin(), file_.aliases.end(),
                                 [&](auto& b) { return b.index == a.index; }) ||
                     std::any_of(file_.bytes.begin(), file_.bytes.end(),
                                 [&](auto& b) { return b.index == a.index; })
               : a.kind != abi::ArgKind::Threadgroup ||
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
    const Scope scope = case_scope(file_, p);
    for (size_t i = 0; i < file_.constraints.size(); ++i) {
      const Expression& c = file_.constraints[i];
      Value holds;
      try {
        holds = c.value(scope);
      } catch (const ExpressionError& e) {
        throw ExpressionError("constraints[" + std::to_string(i) + "]: " + e.what());
      }
      if (!holds.truthy()) return no("constraint '" + c.text() + "' does not hold");
    }
    const Shape s = evaluate_shape(file_, p, file_.dispatch);
    constant_values(scope);  // the function constants evaluate too
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
    return no(file_.origin + ": " + e.what());  // an expression's error, naming its field
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
