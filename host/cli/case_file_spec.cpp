#include "host/cli/case_file_spec.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "kernels/spec/case_context.h"
#include "kernels/spec/case_runner.h"
#include "kernels/spec/compare.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/standard_case.h"
#include "simt/engine/kernel.h"

namespace metalsim::cli {
namespace {

using spec::CaseResult;
using spec::Params;

// Calls f(T{}) with T the C++ type of `t`.
template <class F>
decltype(auto) with_type(ElementType t, F&& f) {
  switch (t) {
    case ElementType::f32: return f(float{});
    case ElementType::f16: return f(spec::half_t{});
    case ElementType::i8: return f(int8_t{});
    case ElementType::u8: return f(uint8_t{});
    case ElementType::i16: return f(int16_t{});
    case ElementType::u16: return f(uint16_t{});
    case ElementType::i32: return f(int32_t{});
    case ElementType::u32: return f(uint32_t{});
    case ElementType::i64: return f(int64_t{});
    case ElementType::u64: return f(uint64_t{});
  }
  return f(float{});
}

using Bytes = std::vector<unsigned char>;

// A case's sizes, evaluated from its parameters.
struct Shape {
  std::vector<size_t> counts;  // by buffer, in elements
  std::vector<Bytes> bytes;    // by bytes binding
  std::vector<uint32_t> threadgroup_lengths;
  MTL::Size grid, threadgroup;
};

MTL::Size size3(const std::array<Expression, 3>& e, const Params& p) {
  return {NS::UInteger(e[0].evaluate(p)), NS::UInteger(e[1].evaluate(p)),
          NS::UInteger(e[2].evaluate(p))};
}

// setBytes contents: each field at its natural alignment, the whole rounded to the largest.
Bytes pack_bytes(const BytesDecl& decl, const Params& p) {
  Bytes out;
  size_t align = 1;
  for (const BytesField& f : decl.fields) {
    with_type(f.type, [&](auto tag) {
      using T = decltype(tag);
      const size_t offset = (out.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
      const T value = f.expression ? T(f.expression->evaluate(p)) : T(f.number);
      out.resize(offset + sizeof(T));
      std::memcpy(out.data() + offset, &value, sizeof(T));
      align = std::max(align, sizeof(T));
    });
  }
  out.resize((out.size() + align - 1) / align * align);
  return out;
}

// Throws ExpressionError (an expression) or CaseFileError (a negative size).
Shape evaluate_shape(const CaseFile& f, const Params& p, const Dispatch& d) {
  Shape s;
  for (const BufferDecl& b : f.buffers) {
    const int64_t n = b.count.evaluate(p);
    if (n < 1)
      throw CaseFileError("buffer '" + b.name + "' would have " + std::to_string(n) +
                          " elements (" + b.count.text() + ")");
    s.counts.push_back(size_t(n));
  }
  for (const BytesDecl& b : f.bytes) s.bytes.push_back(pack_bytes(b, p));
  for (const ThreadgroupMemoryDecl& t : f.threadgroup_memory) {
    const int64_t n = t.bytes.evaluate(p);
    if (n < 0)
      throw CaseFileError("threadgroup(" + std::to_string(t.index) + ") would have " +
                          std::to_string(n) + " bytes");
    s.threadgroup_lengths.push_back(uint32_t(spec::tg_bytes(size_t(n))));
  }
  s.grid = size3(d.grid, p);
  s.threadgroup = size3(d.threadgroup, p);
  return s;
}

// The bytes a buffer starts with: its fill, or poison for an output.
Bytes initial_contents(const BufferDecl& b, size_t count, uint64_t seed) {
  Bytes out(count * element_size(b.type));
  with_type(b.type, [&](auto tag) {
    using T = decltype(tag);
    T* data = reinterpret_cast<T*>(out.data());
    if (!b.fill) return spec::poison(data, count);
    const Fill& fill = *b.fill;
    spec::InputGenerator gen(seed * 0x9e3779b97f4a7c15ull + b.index + 1);
    for (size_t i = 0; i < count && fill.kind != Fill::Kind::file; ++i) {
      if (fill.kind == Fill::Kind::constant) data[i] = T(fill.value);
      else if (fill.kind == Fill::Kind::range) data[i] = T(fill.start + double(i) * fill.step);
      else if constexpr (std::is_integral_v<T>)
        data[i] = T(gen.integer(int64_t(fill.low), int64_t(fill.high)));
      else data[i] = T(gen.uniform(fill.low, fill.high));
    }
  });
  if (b.fill && b.fill->kind == Fill::Kind::file) {
    std::ifstream in(b.fill->path, std::ios::binary);
    in.read(reinterpret_cast<char*>(out.data()), std::streamsize(out.size()));
    if (size_t(in.gcount()) != out.size())
      throw CaseFileError("buffer '" + b.name + "': " + b.fill->path + " has " +
                          std::to_string(in.gcount()) + " bytes, the buffer " +
                          std::to_string(out.size()));
  }
  return out;
}

// One set of buffers for one dispatch of the case, made from the initial contents.
struct BufferSet {
  std::vector<NS::SharedPtr<MTL::Buffer>> buffers;
  const Bytes& bytes_of(size_t i) const { return copies[i]; }
  std::vector<Bytes> copies;  // what each buffer held before the dispatch

  BufferSet(spec::CaseContext& ctx, const std::vector<Bytes>& initial) : copies(initial) {
    for (const Bytes& b : initial) buffers.push_back(ctx.buffer(b));
  }
  void restore() {
    for (size_t i = 0; i < buffers.size(); ++i)
      std::memcpy(buffers[i]->contents(), copies[i].data(), copies[i].size());
  }
  const void* data(size_t i) const { return buffers[i]->contents(); }
};

// Encodes and runs one dispatch of `fn` over `set`, keeping the command buffer's reports.
// `quiet`: what the kernel logs is dropped (the oracles' and the reference's runs).
void dispatch(spec::CaseContext& ctx, MTL::Function* fn, const CaseFile& f, const Shape& s,
              bool threads, BufferSet& set, CaseResult& result, bool quiet = false) {
  NS::Error* error = nullptr;
  auto pipeline = NS::TransferPtr(ctx.device()->newComputePipelineState(fn, &error));
  if (!pipeline)
    throw std::runtime_error(
        "pipeline for '" + std::string(fn->name()->utf8String()) + "' failed" +
        (error ? std::string(": ") + error->localizedDescription()->utf8String() : std::string()));
  MTL::CommandBuffer* cb = ctx.command_buffer();
  if (quiet) cb->setLogState(NS::TransferPtr(ctx.device()->newLogState(nullptr, nullptr)).get());
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pipeline.get());
  for (size_t i = 0; i < f.buffers.size(); ++i)
    enc->setBuffer(set.buffers[i].get(), 0, f.buffers[i].index);
  for (size_t i = 0; i < f.bytes.size(); ++i)
    enc->setBytes(s.bytes[i].data(), s.bytes[i].size(), f.bytes[i].index);
  for (size_t i = 0; i < f.threadgroup_memory.size(); ++i)
    enc->setThreadgroupMemoryLength(s.threadgroup_lengths[i], f.threadgroup_memory[i].index);
  if (threads) enc->dispatchThreads(s.grid, s.threadgroup);
  else enc->dispatchThreadgroups(s.grid, s.threadgroup);
  enc->endEncoding();
  spec::CaseContext::commit(cb, result);
}

// The first element at which two runs' copies of output `b` differ, in words; "" if none.
std::string first_difference(const BufferDecl& b, const void* x, const void* y, size_t count) {
  return with_type(b.type, [&](auto tag) -> std::string {
    using T = decltype(tag);
    const auto* p = static_cast<const T*>(x);
    const auto* q = static_cast<const T*>(y);
    for (size_t i = 0; i < count; ++i)
      if (std::memcmp(&p[i], &q[i], sizeof(T)) != 0)
        return b.name + "[" + std::to_string(i) + "] = " + std::to_string(double(p[i])) +
               " against " + std::to_string(double(q[i]));
    return {};
  });
}

// Output `b` (count elements at `got`) against the reference `ref` (T or double values).
template <class R>
void compare_with(const BufferDecl& b, const void* got, const R* ref, size_t count,
                  const spec::Tolerance& tol, CaseResult& r) {
  with_type(b.type, [&](auto tag) {
    using T = decltype(tag);
    spec::compare_output(b.name, static_cast<const T*>(got), ref, count, tol, r);
  });
}

// With no reference: every element written (where declared) and, for finite outputs, no NaN.
void check_alone(const BufferDecl& b, const void* got, size_t count, CaseResult& r) {
  with_type(b.type, [&](auto tag) {
    using T = decltype(tag);
    const T* g = static_cast<const T*>(got);
    std::vector<double> self(count);
    for (size_t i = 0; i < count; ++i) self[i] = double(g[i]);
    if (b.finite) return spec::compare_output(b.name, g, self.data(), count, {}, r);
    for (size_t i = 0; i < count; ++i, ++r.elements)
      if (b.all_written && spec::is_poison(g[i]) && r.unwritten++ == 0)
        r.worst = b.name + "[" + std::to_string(i) + "] was never written";
  });
}

std::vector<double> as_doubles(const BufferDecl& b, const Bytes& bytes, size_t count) {
  std::vector<double> out(count);
  with_type(b.type, [&](auto tag) {
    using T = decltype(tag);
    const T* p = reinterpret_cast<const T*>(bytes.data());
    for (size_t i = 0; i < count; ++i) out[i] = double(p[i]);
  });
  return out;
}

std::string workers_in_words(uint32_t n) {
  return n == 0 ? "every core" : std::to_string(n) + (n == 1 ? " worker" : " workers");
}

spec::Tolerance default_tolerance(ElementType t) {
  if (t == ElementType::f32) return {0, 1e-5, "float outputs: relative 1e-5 (the default)"};
  if (t == ElementType::f16) return {0, 2e-3, "half outputs: relative 2e-3 (the default)"};
  return {0, 0, "integer outputs: exact"};
}

class CaseFileRun : public spec::PreparedCase {
 public:
  CaseFileRun(const CaseFileSpec& spec, const Params& p, spec::CaseContext& ctx)
      : spec_(spec),
        file_(spec.file()),
        params_(p),
        ctx_(ctx),
        shape_(evaluate_shape(file_, p, file_.dispatch)),
        initial_(initial_for(shape_)),
        main_(ctx, initial_) {}

  void run_kernel() override {
    dispatch(ctx_, spec_.function(file_.kernel), file_, shape_, file_.dispatch.threads, main_,
             kernel_);
    std::vector<OutputData> out;
    for (size_t i = 0; i < file_.buffers.size(); ++i)
      if (file_.buffers[i].output)
        out.push_back(
            {file_.buffers[i].name, file_.buffers[i].type, main_.data(i), shape_.counts[i]});
    spec_.deliver_outputs(out);
  }

  void run_reference() override {
    if (kernel_.reports.empty()) run_oracles();
    if (file_.reference.kind == Reference::Kind::kernel) run_reference_kernel();
    if (file_.reference.kind == Reference::Kind::function) run_reference_function();
  }

  CaseResult compare() override {
    CaseResult r;
    r.reports = kernel_.reports;
    for (size_t i = 0; i < file_.buffers.size(); ++i) {
      const BufferDecl& b = file_.buffers[i];
      if (!b.output) continue;
      const spec::Tolerance tol = file_.tolerance.value_or(default_tolerance(b.type));
      if (!reference_doubles_.empty())
        compare_with(b, main_.data(i), reference_doubles_[i].data(), shape_.counts[i], tol, r);
      else if (reference_set_) compare_typed(b, i, tol, r);
      else check_alone(b, main_.data(i), shape_.counts[i], r);
    }
    for (check::Report& race : oracle_reports_) r.reports.push_back(race);
    spec::finish(r);
    if (r.passed && !equivalence_.empty()) {
      r.passed = false;
      r.failure = equivalence_;
    }
    return r;
  }

  void repoison() override {
    kernel_.reports.clear();
    main_.restore();
  }

  std::vector<OutputView> outputs() const override {
    std::vector<OutputView> views;
    for (size_t i = 0; i < file_.buffers.size(); ++i)
      if (file_.buffers[i].output)
        views.push_back({file_.buffers[i].name, main_.data(i), main_.copies[i].size()});
    return views;
  }

 private:
  std::vector<Bytes> initial_for(const Shape& s) const {
    std::vector<Bytes> out;
    for (size_t i = 0; i < file_.buffers.size(); ++i)
      out.push_back(initial_contents(file_.buffers[i], s.counts[i], ctx_.seed()));
    return out;
  }

  void compare_typed(const BufferDecl& b, size_t i, const spec::Tolerance& tol, CaseResult& r) {
    with_type(b.type, [&](auto tag) {
      using T = decltype(tag);
      compare_with(b, main_.data(i), static_cast<const T*>(reference_set_->data(i)),
                   shape_.counts[i], tol, r);
    });
  }

  // The case again under `options` (and `p`), on fresh buffers; "" when the outputs are the
  // main run's, else the first difference in words.
  std::string run_again(const engine::ExecutionOptions& options, const Params& p) {
    const Shape s = evaluate_shape(file_, p, file_.dispatch);
    if (s.counts != shape_.counts) return "the outputs' sizes change";
    BufferSet again(ctx_, initial_for(s));
    const engine::ExecutionOptions saved = ctx_.options();
    ctx_.mutable_options() = options;
    CaseResult ignored;
    dispatch(ctx_, spec_.function(file_.kernel), file_, s, file_.dispatch.threads, again, ignored,
             true);
    ctx_.mutable_options() = saved;
    if (!ignored.reports.empty())
      return "the run filed " + std::string(check::check_name(ignored.reports.front().check));
    for (size_t i = 0; i < file_.buffers.size(); ++i) {
      if (!file_.buffers[i].output) continue;
      const std::string d =
          first_difference(file_.buffers[i], again.data(i), main_.data(i), shape_.counts[i]);
      if (!d.empty()) return d;
    }
    return {};
  }

  void file_race(const std::string& what, const std::string& repro) {
    check::Report r;
    r.check = check::CheckId::race_schedule;
    r.kernel = file_.kernel;
    r.message = what + " (reproduce with " + repro + ")";
    oracle_reports_.push_back(std::move(r));
  }

  // The oracles that need no reference (header comment).
  void run_oracles() {
    const engine::ExecutionOptions base = ctx_.options();
    if (file_.compare_schedules) {
      engine::ExecutionOptions reversed = base;
      const bool was_reversed = base.schedule.kind == engine::ScheduleKind::reversed;
      reversed.schedule = {
          was_reversed ? engine::ScheduleKind::in_order : engine::ScheduleKind::reversed, 0};
      if (reversed.mode == engine::ExecutionMode::loops)
        reversed.mode = engine::ExecutionMode::automatic;
      if (const std::string d = run_again(reversed, params_); !d.empty())
        return file_race("results under " + base.schedule.str() + " and " +
                             reversed.schedule.str() + " differ: " + d,
                         "--schedule " + reversed.schedule.str());
      engine::ExecutionOptions workers = base;
      workers.workers = base.workers == 1 ? 2 : 1;
      if (const std::string d = run_again(workers, params_); !d.empty())
        return file_race("results on " + workers_in_words(base.workers) + " and on " +
                             workers_in_words(workers.workers) + " differ: " + d,
                         "--workers " + std::to_string(workers.workers));
    }
    for (const auto& [param, values] : file_.equivalent)
      for (int64_t v : values) {
        Params p = params_;
        if (p.at(param) == v) continue;
        p[param] = v;
        std::string why;
        if (!spec_.valid(p, &why)) continue;
        if (const std::string d = run_again(base, p); !d.empty()) {
          equivalence_ = "equivalent " + param + "=" + std::to_string(v) + " and " + param + "=" +
                         std::to_string(params_.at(param)) + " give different outputs: " + d;
          return;
        }
      }
  }

  void run_reference_kernel() {
    const Dispatch& d = file_.reference.dispatch.value_or(file_.dispatch);
    const Shape s = evaluate_shape(file_, params_, d);
    reference_set_ = std::make_unique<BufferSet>(ctx_, initial_);
    CaseResult result;
    dispatch(ctx_, spec_.function(file_.reference.kernel), file_, s, d.threads, *reference_set_,
             result, true);
    if (!result.reports.empty())
      throw std::runtime_error("the reference kernel '" + file_.reference.kernel +
                               "' failed: " + result.reports.front().message);
  }

  void run_reference_function() {
    std::vector<metalsim_case_buffer> buffers;
    for (size_t i = 0; i < file_.buffers.size(); ++i) {
      const BufferDecl& b = file_.buffers[i];
      reference_doubles_.push_back(b.fill ? as_doubles(b, initial_[i], shape_.counts[i])
                                          : std::vector<double>(shape_.counts[i], 0.0));
    }
    for (size_t i = 0; i < file_.buffers.size(); ++i)
      buffers.push_back({file_.buffers[i].name.c_str(), file_.buffers[i].index,
                         file_.buffers[i].output ? 1 : 0, shape_.counts[i],
                         reference_doubles_[i].data()});
    std::vector<metalsim_case_param_value> params;
    for (const auto& [name, value] : params_) params.push_back({name.c_str(), value});
    const metalsim_case c{buffers.data(), uint32_t(buffers.size()), params.data(),
                          uint32_t(params.size())};
    if (const int rc = spec_.reference_function()(&c); rc != 0)
      throw std::runtime_error("the reference function '" + file_.reference.function +
                               "' returned " + std::to_string(rc));
  }

  const CaseFileSpec& spec_;
  const CaseFile& file_;
  Params params_;
  spec::CaseContext& ctx_;
  Shape shape_;
  std::vector<Bytes> initial_;
  BufferSet main_;
  CaseResult kernel_;                          // the main run's reports
  std::vector<check::Report> oracle_reports_;  // race.schedule from the oracles
  std::string equivalence_;                    // an equivalent parameter changed the outputs
  std::unique_ptr<BufferSet> reference_set_;   // the reference kernel's buffers
  std::vector<std::vector<double>> reference_doubles_;  // the reference function's
};

}  // namespace

// ------------------------------ CaseFileSpec

std::string format_element(const OutputData& o, size_t i) {
  return with_type(o.type, [&](auto tag) -> std::string {
    using T = decltype(tag);
    const T v = static_cast<const T*>(o.data)[i];
    if constexpr (std::is_integral_v<T>) return std::to_string(v);
    else {
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", double(v));
      return text;
    }
  });
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
  library_ = NS::TransferPtr(device_->newLibrary(url, nullptr, &error));
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
  reference_library_ = dlopen(file_.reference.library.c_str(), RTLD_NOW | RTLD_LOCAL);
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
      if (a.index == b.index && a.kind != engine::ArgKind::Threadgroup &&
          a.kind != engine::ArgKind::Builtin)
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
  return std::make_unique<CaseFileRun>(*this, p, ctx);
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
