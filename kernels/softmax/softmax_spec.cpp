// Specs of the softmax family: softmax (corrected) and softmax_as_documented (ADR-003 as
// written). Tolerances: docs/kernels/softmax.md; findings: docs/findings/softmax.md.
#include <cmath>
#include <limits>

#include "kernels/softmax/softmax_baseline.h"
#include "kernels/softmax/softmax_ref.h"
#include "kernels/softmax/softmax_tolerance.h"
#include "kernels/spec/inputs.h"
#include "kernels/spec/spec_names.h"
#include "kernels/spec/standard_case.h"

namespace metalsim::kernels::softmax {
namespace {

// fill: 0 random N(0, 3); 1 a quarter of the entries -inf (masked, each row keeps one finite);
// 2 as 0 but row 0 entirely -inf (a fully masked row).
std::vector<half_t> make_input(uint64_t seed, uint32_t rows, uint32_t cols, int64_t fill) {
  spec::InputGenerator gen(seed);
  std::vector<half_t> x(size_t(rows) * cols);
  for (half_t& v : x) v = half_t(3 * gen.normal());
  if (fill == 1)
    for (size_t i = 0; i < x.size(); ++i)
      if (i % cols != 0 && gen.integer(0, 3) == 0)
        x[i] = half_t(-std::numeric_limits<float>::infinity());
  if (fill == 2)
    for (uint32_t c = 0; c < cols; ++c) x[c] = half_t(-std::numeric_limits<float>::infinity());
  return x;
}

class SoftmaxSpec : public spec::NamedSpec {
 public:
  SoftmaxSpec(std::string name, std::string summary, bool documented)
      : NamedSpec(std::move(name), "softmax", std::move(summary)), documented_(documented) {}
  std::vector<ParamDef> params() const override {
    return {{"rows", 1, 1 << 16, {}, {1, 2, 3}, 2, "rows, one threadgroup each"},
            {"cols", 1, 1 << 20, {}, {1, 255, 256, 257, 4097}, 256, "row length"},
            {"tg", 1, 1024, {}, {1, 32, 33, 256, 1024}, 256, "threads per threadgroup"},
            {"fill", 0, 2, {0, 1, 2}, {0, 1, 2}, 0, "0 random, 1 some -inf, 2 row 0 all -inf"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    if (p.at("rows") < 1 || p.at("cols") < 1 || p.at("tg") < 1 || p.at("tg") > 1024 ||
        p.at("fill") < 0 || p.at("fill") > 2) {
      if (why) *why = "rows, cols >= 1, 1 <= tg <= 1024, fill in 0..2";
      return false;
    }
    return true;
  }
  // The smallest case of each finding (docs/findings/softmax.md).
  std::vector<spec::Finding> findings() const override {
    if (!documented_) return {};
    return {
        {{{"rows", 1}, {"cols", 1}, {"tg", 1}},
         "bounds.threadgroup",
         "the 256-wide tree reads shared[128]"},
        {{{"rows", 1}, {"cols", 2}, {"tg", 256}},
         "mismatch",
         "row_max read from shared[0] after thread 0 overwrote it"},
        {{{"rows", 1}, {"cols", 257}, {"tg", 512}}, "mismatch", "threads 256 and up redo elements"},
        {{{"rows", 1}, {"cols", 1}, {"tg", 256}, {"fill", 2}},
         "non_finite",
         "an all -inf row gives NaN"}};
  }
  std::vector<Params> sweep() const override {
    if (documented_) return finding_cases();
    return {{{"rows", 1}, {"cols", 1}, {"tg", 1}},
            {{"rows", 3}, {"cols", 255}, {"tg", 256}},
            {{"rows", 2}, {"cols", 257}, {"tg", 256}, {"fill", 1}},
            {{"rows", 2}, {"cols", 100}, {"tg", 33}, {"fill", 2}},
            {{"rows", 1}, {"cols", 4097}, {"tg", 1024}},
            {{"rows", 2}, {"cols", 1000}, {"tg", 1000}, {"fill", 1}}};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"rows", 4096}, {"cols", 4096}, {"tg", 256}}};
  }
  std::string known_bug() const override {
    return documented_
               ? "hard-coded 256-thread strides and tree (other threadgroup sizes read past "
                 "threadgroup memory or process elements twice); row_max is read from shared[0] "
                 "while thread 0 "
                 "overwrites it with its partial sum (no barrier); an all -inf row gives NaN"
               : "";
  }

  // x in place (half); the input kept, the double reference, the in-place comparison's copy.
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t n = uint64_t(p.at("rows")) * uint64_t(p.at("cols"));
    return {2 * n, (2 + 8 + 2) * n};
  }
  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const uint32_t rows = uint32_t(p.at("rows")), cols = uint32_t(p.at("cols")),
                   tg = uint32_t(p.at("tg"));
    auto c = std::make_unique<spec::StandardCase>();
    auto input =
        std::make_shared<std::vector<half_t>>(make_input(ctx.seed(), rows, cols, p.at("fill")));
    auto ref = std::make_shared<std::vector<double>>();
    auto x = ctx.buffer(*input);
    auto bind = [=](MTL::ComputeCommandEncoder* e) {
      e->setBuffer(x.get(), 0, 0);
      e->setBytes(&rows, 4, 1);
      e->setBytes(&cols, 4, 2);
      e->setThreadgroupMemoryLength(spec::tg_bytes(tg * sizeof(float)), 0);  // a float a thread
    };
    c->kernel = spec::one_dispatch(ctx, name(), bind, {rows, 1, 1}, {tg, 1, 1},
                                   spec::CaseContext::Grid::threadgroups);
    c->reference = [=] { *ref = softmax_ref(*input, rows, cols); };
    const Tolerance tol = softmax_tolerance(cols);
    c->check = [=](CaseResult& r) {
      spec::compare_in_place("x", spec::contents<half_t>(x), *input, *ref, tol, r);
    };
    c->expose("x", x);
    c->poison_again = [=] { spec::fill(x, *input); };
    auto fast = std::make_shared<std::vector<half_t>>(input->size());
    c->baseline = [=] { softmax_baseline(input->data(), fast->data(), rows, cols); };
    return c;
  }

 private:
  bool documented_;
};

METALSIM_REGISTER_SPEC_AS(softmax, SoftmaxSpec, "softmax",
                          "row softmax in place, any cols and threadgroup size, masked rows give 0",
                          false);
METALSIM_REGISTER_SPEC_AS(
    softmax_as_documented, SoftmaxSpec, "softmax_as_documented",
    "ADR-003 row softmax as written (256-thread strides and tree, half exp storage)", true);

}  // namespace
}  // namespace metalsim::kernels::softmax
