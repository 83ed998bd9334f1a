// Specs of the CLI tests, over kernels written by hand against the engine ABI:
//   cli_scale                    y = 2x + 1, correct
//   cli_planted_tile             the same, with a planted off-by-one: a last tile of exactly
//                                63 elements loses its last element (wrong only when n % 64 == 63)
//   cli_planted_tile_as_documented  the same kernel marked known_bug
//   cli_racy                     every lane writes one shared word: the result depends on the
//   schedule
#include <algorithm>
#include <vector>

#include "kernels/spec/case_context.h"
#include "kernels/spec/compare.h"
#include "kernels/spec/inputs.h"
#include "support/hand_kernel.h"

namespace metalsim::testing {
namespace {

using spec::Params;
constexpr uint32_t kTile = 64;

// One threadgroup of 64 lanes per tile of a row: grid (tiles, rows).
template <bool Planted>
void tile_body(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t n = *buffer<const uint32_t>(a, 2);
  const uint32_t tile = lane.value(Builtin::threadgroup_position_in_grid).x;
  const uint32_t row = lane.value(Builtin::threadgroup_position_in_grid).y;
  const uint32_t lid = lane.value(Builtin::thread_position_in_threadgroup).x;
  const uint32_t remaining = n - tile * kTile;
  uint32_t count = std::min(remaining, kTile);
  if (Planted && remaining == kTile - 1) count -= 1;  // the planted off-by-one
  if (lid >= count) return;
  const uint32_t i = row * n + tile * kTile + lid;
  buffer<float>(a, 1)[i] = buffer<const float>(a, 0)[i] * 2.0f + 1.0f;
}
HandKernel scale_kernel("cli_scale",
                        {device_arg("x", 0, 4, true), device_arg("y", 1, 4),
                         constant_arg("n", 2, 4)},
                        &lane_loop<tile_body<false>>);
HandKernel planted_kernel("cli_planted_tile",
                          {device_arg("x", 0, 4, true), device_arg("y", 1, 4),
                           constant_arg("n", 2, 4)},
                          &lane_loop<tile_body<true>>);

// Every lane stores its index into y[threadgroup]: the last lane to run wins.
void racy_body(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t g = lane.value(Builtin::threadgroup_position_in_grid).x;
  buffer<float>(a, 1)[g] = float(lane.value(Builtin::thread_position_in_threadgroup).x);
}
HandKernel racy_kernel("cli_racy",
                       {device_arg("x", 0, 4, true), device_arg("y", 1, 4),
                        constant_arg("n", 2, 4)},
                       &lane_loop<racy_body>);

class TileCase : public spec::PreparedCase {
 public:
  TileCase(std::string kernel, bool racy, const Params& p, spec::CaseContext& ctx)
      : kernel_(std::move(kernel)),
        racy_(racy),
        n_(uint32_t(p.at("n"))),
        rows_(uint32_t(p.at("rows"))),
        ctx_(ctx) {
    spec::CaseContext& dev = ctx;
    spec::InputGenerator gen(ctx.seed());
    x_ = gen.uniform_vector<float>(size_t(n_) * rows_, -4, 4);
    in_ = dev.buffer(x_);
    out_ = dev.buffer(output_count() * sizeof(float));
    repoison();
  }
  size_t output_count() const { return racy_ ? size_t(tiles()) * rows_ : size_t(n_) * rows_; }
  std::vector<OutputView> outputs() const override {
    return {{"y", out_->contents(), output_count() * sizeof(float)}};
  }
  uint32_t tiles() const { return (n_ + kTile - 1) / kTile; }

  void run_kernel() override {
    MTL::CommandBuffer* cb = ctx_.command_buffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(ctx_.pipeline(kernel_));
    enc->setBuffer(in_.get(), 0, 0);
    enc->setBuffer(out_.get(), 0, 1);
    enc->setBytes(&n_, sizeof n_, 2);
    enc->dispatchThreadgroups(MTL::Size(tiles(), racy_ ? 1 : rows_, 1), MTL::Size(kTile, 1, 1));
    enc->endEncoding();
    kernel_result_ = {};
    spec::CaseContext::commit(cb, kernel_result_);
  }
  void run_reference() override {
    ref_.assign(output_count(), 0.0f);
    for (size_t i = 0; i < ref_.size(); ++i)
      ref_[i] = racy_ ? float(kTile - 1) : x_[i] * 2.0f + 1.0f;  // racy: the in-order last lane
  }
  spec::CaseResult compare() override {
    spec::CaseResult r = kernel_result_;
    spec::compare_output("y", static_cast<const float*>(out_->contents()), ref_.data(), ref_.size(),
                         {1e-6, 0, "exact arithmetic"}, r);
    spec::finish(r);
    return r;
  }
  void repoison() override { spec::poison(static_cast<float*>(out_->contents()), output_count()); }

 private:
  std::string kernel_;
  bool racy_;
  uint32_t n_, rows_;
  spec::CaseContext& ctx_;
  std::vector<float> x_, ref_;
  NS::SharedPtr<MTL::Buffer> in_, out_;
  spec::CaseResult kernel_result_;
};

class TileSpec : public spec::KernelSpec {
 public:
  TileSpec(std::string name, std::string kernel, spec::Expectation e)
      : name_(std::move(name)), kernel_(std::move(kernel)), expectation_(e) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "cli_test"; }
  std::string summary() const override {
    return "y = 2x + 1 over rows of n floats, tiles of 64 (" + kernel_ + ")";
  }
  std::vector<spec::ParamDef> params() const override {
    return {{"n", 1, 4096, {}, {64, 128, 1024}, 64, "elements per row"},
            {"rows", 1, 8, {}, {1, 8}, 1, "rows"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    for (const auto& d : params())
      if (p.at(d.name) < d.min || p.at(d.name) > d.max) {
        *why = d.name + " out of range";
        return false;
      }
    return true;
  }
  std::vector<Params> sweep() const override {
    if (expectation_ == spec::Expectation::known_bug) return finding_cases();
    if (kernel_ == "cli_racy") return {{{"n", 64}, {"rows", 1}}, {{"n", 100}, {"rows", 1}}};
    return {{{"n", 1}, {"rows", 1}},
            {{"n", 64}, {"rows", 3}},
            {{"n", 65}, {"rows", 2}},
            {{"n", 63}, {"rows", 1}}};
  }
  std::vector<Params> bench_cases() const override { return {{{"n", 4096}, {"rows", 8}}}; }
  spec::Expectation expectation() const override { return expectation_; }
  std::string known_bug() const override {
    return expectation_ == spec::Expectation::known_bug
               ? "a last tile of 63 elements loses its last element"
               : "";
  }
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("n")) * uint64_t(p.at("rows"));
    return {8 * n + 4, 8 * n};
  }
  std::vector<spec::Finding> findings() const override {
    if (expectation_ != spec::Expectation::known_bug) return {};
    return {{{{"n", 63}, {"rows", 1}}, "unwritten", "the last element of a 63-element tile"},
            {{{"n", 127}, {"rows", 2}}, "unwritten", "the same in the second tile of each row"}};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    return std::make_unique<TileCase>(kernel_, kernel_ == "cli_racy", p, ctx);
  }

 private:
  std::string name_, kernel_;
  spec::Expectation expectation_;
};

struct ScaleSpec : TileSpec {
  ScaleSpec() : TileSpec("cli_scale", "cli_scale", spec::Expectation::pass) {}
};
struct PlantedSpec : TileSpec {
  PlantedSpec() : TileSpec("cli_planted_tile", "cli_planted_tile", spec::Expectation::pass) {}
};
struct PlantedDocumentedSpec : TileSpec {
  PlantedDocumentedSpec()
      : TileSpec("cli_planted_tile_as_documented", "cli_planted_tile",
                 spec::Expectation::known_bug) {}
};
struct RacySpec : TileSpec {
  RacySpec() : TileSpec("cli_racy", "cli_racy", spec::Expectation::pass) {}
};
METALSIM_REGISTER_SPEC(ScaleSpec);
METALSIM_REGISTER_SPEC(PlantedSpec);
METALSIM_REGISTER_SPEC(PlantedDocumentedSpec);
METALSIM_REGISTER_SPEC(RacySpec);

}  // namespace
}  // namespace metalsim::testing
