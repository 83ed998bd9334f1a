#include "host/cli/case_file_run.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/cli/block_fill.h"
#include "host/cli/case_file_data.h"
#include "kernels/spec/case_runner.h"
#include "kernels/spec/compare.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::cli {
namespace {

using spec::CaseResult;
using spec::Params;

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

// Encodes and runs one dispatch of `fn` (specialised for the case: CaseFileSpec::specialised)
// over `set`, keeping the command buffer's reports.
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
    enc->setBuffer(set.buffers[i].get(), s.offsets[i], f.buffers[i].index);
  for (size_t i = 0; i < f.aliases.size(); ++i)
    enc->setBuffer(set.buffers[f.aliases[i].buffer].get(), s.offsets[f.buffers.size() + i],
                   f.aliases[i].index);
  for (size_t i = 0; i < f.bytes.size(); ++i)
    enc->setBytes(s.bytes[i].data(), s.bytes[i].size(), f.bytes[i].index);
  for (size_t i = 0; i < f.threadgroup_memory.size(); ++i)
    enc->setThreadgroupMemoryLength(s.threadgroup_lengths[i], f.threadgroup_memory[i].index);
  if (threads) enc->dispatchThreads(s.grid, s.threadgroup);
  else enc->dispatchThreadgroups(s.grid, s.threadgroup);
  enc->endEncoding();
  spec::CaseContext::commit(cb, result);
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

std::string workers_in_words(uint32_t n) {
  return n == 0 ? "every core" : std::to_string(n) + (n == 1 ? " worker" : " workers");
}

class CaseFileRun : public spec::PreparedCase {
 public:
  CaseFileRun(const CaseFileSpec& spec, const Params& p, spec::CaseContext& ctx)
      : spec_(spec),
        file_(spec.file()),
        params_(p),
        ctx_(ctx),
        scope_(case_scope(file_, p)),
        shape_(evaluate_shape(file_, p, file_.dispatch)),
        initial_(initial_for(shape_)),
        main_(ctx, initial_) {}

  void run_kernel() override {
    dispatch(ctx_, spec_.specialised(file_.kernel, scope_).get(), file_, shape_,
             file_.dispatch.threads, main_, kernel_);
    std::vector<OutputData> out;
    for (size_t i = 0; i < file_.buffers.size(); ++i)
      if (file_.buffers[i].output)
        out.push_back(
            {file_.buffers[i].name, file_.buffers[i].type, main_.data(i), shape_.counts[i]});
    spec_.deliver_outputs(out);
  }

  void run_reference() override {
    // A warning (barrier.exited) leaves complete outputs: the oracles still run.
    if (!report::any_error(kernel_.reports)) run_oracles();
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
    for (report::Report& race : oracle_reports_) r.reports.push_back(race);
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
  std::string run_again(const metalsim::ExecutionOptions& options, const Params& p) {
    const Shape s = evaluate_shape(file_, p, file_.dispatch);
    if (s.counts != shape_.counts) return "the outputs' sizes change";
    BufferSet again(ctx_, initial_for(s));
    const metalsim::ExecutionOptions saved = ctx_.options();
    ctx_.mutable_options() = options;
    CaseResult ignored;
    dispatch(ctx_, spec_.specialised(file_.kernel, case_scope(file_, p)).get(), file_, s,
             file_.dispatch.threads, again, ignored, true);
    ctx_.mutable_options() = saved;
    // The main run's warnings come again; an error is a difference.
    if (const report::Report* error = report::first_error(ignored.reports))
      return "the run filed " + std::string(report::check_name(error->check));
    for (size_t i = 0; i < file_.buffers.size(); ++i) {
      if (!file_.buffers[i].output) continue;
      const std::string d =
          first_difference(file_.buffers[i], again.data(i), main_.data(i), shape_.counts[i]);
      if (!d.empty()) return d;
    }
    return {};
  }

  void file_race(const std::string& what, const std::string& repro) {
    report::Report r;
    r.check = report::CheckId::race_schedule;
    r.kernel = file_.kernel;
    r.message = what + " (reproduce with " + repro + ")";
    oracle_reports_.push_back(std::move(r));
  }

  // The oracles that need no reference (header comment).
  void run_oracles() {
    const metalsim::ExecutionOptions base = ctx_.options();
    if (file_.compare_schedules) {
      metalsim::ExecutionOptions reversed = base;
      const bool was_reversed = base.schedule.kind == metalsim::ScheduleKind::reversed;
      reversed.schedule = {
          was_reversed ? metalsim::ScheduleKind::in_order : metalsim::ScheduleKind::reversed, 0};
      if (const std::string d = run_again(reversed, params_); !d.empty())
        return file_race("results under " + base.schedule.str() + " and " +
                             reversed.schedule.str() + " differ: " + d,
                         "--schedule " + reversed.schedule.str());
      metalsim::ExecutionOptions workers = base;
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
    const Dispatch& d = file_.reference.dispatch ? *file_.reference.dispatch : file_.dispatch;
    const Shape s = evaluate_shape(file_, params_, d);
    reference_set_ = std::make_unique<BufferSet>(ctx_, initial_);
    CaseResult result;
    dispatch(ctx_, spec_.specialised(file_.reference.kernel, scope_).get(), file_, s, d.threads,
             *reference_set_, result, true);
    // A warning of the reference kernel (barrier.exited) is not the case's: it ran to its end.
    const report::Report* error = report::first_error(result.reports);
    if (error == nullptr) return;
    // The watchdog (a fuzz campaign's deadline) stopping the reference is the case's own stop,
    // which the campaign counts as stopped, not a harness error.
    if (error->check == report::CheckId::watchdog_timeout) {
      oracle_reports_.push_back(*error);
      return;
    }
    throw std::runtime_error("the reference kernel '" + file_.reference.kernel +
                             "' failed: " + error->message);
  }

  // What the reference function sees of buffer `i`: its elements as doubles (zeros for an output
  // without a fill); an input of GGML blocks as the values they hold (dequantized exactly).
  std::vector<double> reference_view(const BufferDecl& b, size_t i) const {
    if (!b.fill) return std::vector<double>(shape_.counts[i], 0.0);
    if (b.fill->kind == Fill::Kind::blocks && !b.output)
      return dequantize_blocks(*b.fill->blocks,
                               reinterpret_cast<const unsigned char*>(initial_[i].data()),
                               initial_[i].size());
    return as_doubles(b, initial_[i], shape_.counts[i]);
  }

  void run_reference_function() {
    std::vector<metalsim_case_buffer> buffers;
    for (size_t i = 0; i < file_.buffers.size(); ++i)
      reference_doubles_.push_back(reference_view(file_.buffers[i], i));
    for (size_t i = 0; i < file_.buffers.size(); ++i)
      buffers.push_back({file_.buffers[i].name.c_str(), file_.buffers[i].index,
                         file_.buffers[i].output ? 1 : 0, reference_doubles_[i].size(),
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
  Scope scope_;  // the parameters and the lets
  Shape shape_;
  std::vector<Bytes> initial_;
  BufferSet main_;
  CaseResult kernel_;                           // the main run's reports
  std::vector<report::Report> oracle_reports_;  // race.schedule, the reference's watchdog stop
  std::string equivalence_;                     // an equivalent parameter changed the outputs
  std::unique_ptr<BufferSet> reference_set_;    // the reference kernel's buffers
  std::vector<std::vector<double>> reference_doubles_;  // the reference function's
};

}  // namespace

std::unique_ptr<spec::PreparedCase> prepare_case_file_run(const CaseFileSpec& spec,
                                                          const spec::Params& p,
                                                          spec::CaseContext& ctx) {
  return std::make_unique<CaseFileRun>(spec, p, ctx);
}

}  // namespace metalsim::cli
