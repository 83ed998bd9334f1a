// Specs of the trellis family: gemm_trellis_packed (prefill), gemm_trellis_packed_decode,
// gemm_trellis_packed_as_documented (section 3.3's sketch, known bugs) and gemm_trellis_moe.
// Each case dispatches as the layers do (TrellisLinear.encode, TrellisMoE.encode) on a command
// buffer carrying the run's options, and compares with trellis_ref.cpp under its per-element
// bounds (docs/kernels/trellis.md, "Tolerance"; findings: docs/findings/trellis.md).
#include <cmath>

#include "kernels/spec/spec_names.h"
#include "kernels/trellis/trellis_cases.h"
#include "kernels/trellis/trellis_linear.h"

namespace metalsim::kernels::trellis {
namespace {

constexpr int64_t kMaxWork = int64_t(1) << 34;  // M * K * N: twice the largest bench case

ParamDef bits_param() { return {"bits", 2, 4, {2, 3, 4}, {2, 3, 4}, 4, "index width"}; }
ParamDef group_param() {
  return {"group_size", 1, 4096, {}, {1, 8, 32, 128}, 32, "rows per scale"};
}

std::string why_not(bool ok, const std::string& message) { return ok ? "" : message; }

// ============================== the dense kernels

class GemmSpec : public spec::NamedSpec {
 public:
  GemmSpec(TrellisKernel kernel, std::string summary)
      : NamedSpec(geometry(kernel).name, "trellis", std::move(summary)), kernel_(kernel) {}
  std::vector<ParamDef> params() const override {
    return {{"M", 1, 4096, {}, {1, 15, 16, 17, 63, 64, 65, 512}, 17, "rows of A and C (tokens)"},
            {"K", 1, 16384, {}, {1, 15, 16, 17, 31, 32, 33, 100}, 40, "input features"},
            {"N", 1, 16384, {}, {1, 15, 16, 17, 63, 64, 65, 127, 128, 129}, 72, "output features"},
            bits_param(),
            group_param(),
            {"n_levels",
             0,
             16,
             {},
             {0, 1, 3, 11},
             0,
             "grid entries (0: 2^bits; fewer: indices past it are clamped)"}};
  }
  bool valid(const Params& p, std::string* why) const override {
    const int64_t M = p.at("M"), K = p.at("K"), N = p.at("N"), bits = p.at("bits");
    std::string w =
        why_not(M >= 1 && K >= 1 && N >= 1 && p.at("group_size") >= 1, "M, K, N, group_size >= 1");
    if (w.empty()) w = why_not(bits >= 2 && bits <= 4, "bits is 2, 3 or 4");
    if (w.empty())
      w = why_not(p.at("n_levels") >= 0 && p.at("n_levels") <= (1 << bits), "n_levels <= 2^bits");
    if (w.empty()) w = why_not(M * K * N <= kMaxWork, "M * K * N <= 2^34");
    if (why) *why = w;
    return w.empty();
  }
  std::vector<Params> sweep() const override {
    if (kernel_ == TrellisKernel::prefill_as_documented) return finding_cases();
    // Every M of the switch and the tiles (the prefill kernel) or the decode sizes and a few
    // past them (the decode kernel), each with every bit width, and group size and (K, N)
    // turning with them: tile multiples, one off them, partial 16x16 tiles, several K steps.
    const int64_t kn[][2] = {{64, 64}, {40, 72}, {33, 17}, {100, 130}, {16, 129}, {129, 31}};
    const std::vector<int64_t> ms = kernel_ == TrellisKernel::decode
                                        ? std::vector<int64_t>{1, 15, 16, 33}
                                        : std::vector<int64_t>{1, 15, 16, 17, 63, 64, 65, 512};
    std::vector<Params> cases;
    size_t i = 0;
    for (int64_t m : ms)
      for (int64_t bits : {2, 3, 4}) {
        const int64_t* s = kn[i % 6];
        cases.push_back(
            {{"M", m}, {"K", s[0]}, {"N", s[1]}, {"bits", bits}, {"group_size", i % 2 ? 32 : 128}});
        ++i;
      }
    cases.push_back(
        {{"M", 17}, {"K", 48}, {"N", 48}, {"bits", 4}, {"n_levels", 11}});  // clamped indices
    cases.push_back({{"M", 20},
                     {"K", 70},
                     {"N", 50},
                     {"bits", 2},
                     {"group_size", 5}});  // groups across sub-tiles
    return cases;
  }
  std::vector<Params> bench_cases() const override {
    if (kernel_ == TrellisKernel::prefill_as_documented) return {};
    const int64_t m = kernel_ == TrellisKernel::decode ? 1 : 512;
    std::vector<Params> cases;
    for (int64_t bits : {2, 3, 4})
      cases.push_back({{"M", m}, {"K", 4096}, {"N", 4096}, {"bits", bits}, {"group_size", 128}});
    return cases;
  }
  std::string known_bug() const override {
    return kernel_ != TrellisKernel::prefill_as_documented
               ? ""
               : "section 3.3's sketch: every row of an 8x8 sub-tile takes row 0's index and sign; "
                 "no column bound "
                 "(reads past sv for N % 8 != 0); no clamp of indices >= n_levels (reads past "
                 "grid)";
  }
  std::vector<spec::Finding> findings() const override {
    if (kernel_ != TrellisKernel::prefill_as_documented) return {};
    return {{{{"M", 1}, {"K", 2}, {"N", 8}, {"bits", 4}, {"group_size", 128}},
             "mismatch",
             "idx_in_tile and su[k_idx] do not depend on the row: rows 1..7 of a sub-tile take row "
             "0's weight"},
            {{{"M", 1}, {"K", 33}, {"N", 4}, {"bits", 4}, {"group_size", 32}},
             "bounds.device",
             "b_col is never compared with N: columns N .. the fragment's end read past sv"},
            {{{"M", 1}, {"K", 1}, {"N", 8}, {"bits", 4}, {"group_size", 128}, {"n_levels", 4}},
             "bounds.device",
             "indices >= n_levels are not clamped: grid is read past its end"}};
  }

  // The packed weights (at most a byte per weight, with scales and signs), A and C (half); the
  // spec keeps the dense weights (float), their dequantized copy, A, and the reference with its
  // per-element bounds (double).
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t M = uint64_t(p.at("M")), K = uint64_t(p.at("K")), N = uint64_t(p.at("N"));
    return {2 * K * N + 2 * M * K + 2 * M * N + 8 * (K + N), 12 * K * N + 10 * M * K + 24 * M * N};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const GemmShape shape{uint32_t(p.at("M")),          uint32_t(p.at("K")),
                          uint32_t(p.at("N")),          uint32_t(p.at("bits")),
                          uint32_t(p.at("group_size")), uint32_t(p.at("n_levels"))};
    return prepare_gemm_case(
        std::make_shared<const GemmProblem>(make_gemm_problem(shape, ctx.seed())), kernel_, ctx);
  }

 private:
  TrellisKernel kernel_;
};

// ============================== the MoE layer

class MoeSpec : public spec::NamedSpec {
 public:
  MoeSpec()
      : NamedSpec("gemm_trellis_moe", "trellis",
                  "MoE layer on trellis experts: routed SwiGLU (gate_up kernel) then "
                  "probability-weighted down projections") {}
  std::vector<ParamDef> params() const override {
    return {{"M", 1, 4096, {}, {1, 5, 31, 32, 33, 65}, 5, "tokens"},
            {"hidden",
             1,
             8192,
             {},
             {1, 17, 32, 33, 127, 128, 129},
             48,
             "K: the layer's input and output width"},
            {"intermediate",
             1,
             8192,
             {},
             {1, 17, 32, 33, 127, 128, 129},
             40,
             "N: the experts' SwiGLU width"},
            {"experts", 1, 64, {}, {1, 2, 8}, 4, "experts"},
            {"top_k", 1, 8, {}, {1, 2}, 2, "experts per token"},
            bits_param(),
            group_param()};
  }
  bool valid(const Params& p, std::string* why) const override {
    const int64_t M = p.at("M"), H = p.at("hidden"), I = p.at("intermediate"), E = p.at("experts"),
                  k = p.at("top_k");
    std::string w = why_not(M >= 1 && H >= 1 && I >= 1 && p.at("group_size") >= 1,
                            "M, hidden, intermediate, group_size >= 1");
    if (w.empty()) w = why_not(E >= 1 && k >= 1 && k <= E, "1 <= top_k <= experts");
    if (w.empty()) w = why_not(p.at("bits") >= 2 && p.at("bits") <= 4, "bits is 2, 3 or 4");
    if (w.empty())
      w = why_not(3 * M * k * H * I <= kMaxWork, "3 * M * top_k * hidden * intermediate <= 2^34");
    if (why) *why = w;
    return w.empty();
  }
  std::vector<Params> sweep() const override {
    auto c = [](int64_t M, int64_t H, int64_t I, int64_t E, int64_t k, int64_t bits, int64_t g) {
      return Params{{"M", M},     {"hidden", H},  {"intermediate", I}, {"experts", E},
                    {"top_k", k}, {"bits", bits}, {"group_size", g}};
    };
    return {c(1, 64, 64, 1, 1, 4, 32),   c(1, 40, 72, 8, 2, 3, 128),  c(5, 33, 17, 2, 2, 2, 32),
            c(33, 64, 48, 4, 1, 4, 128), c(65, 48, 130, 3, 2, 3, 32), c(40, 130, 40, 8, 2, 2, 128),
            c(70, 32, 32, 2, 1, 4, 32),  c(3, 32, 32, 8, 1, 2, 32),   c(9, 24, 40, 5, 2, 3, 8)};
  }
  std::vector<Params> bench_cases() const override {
    return {{{"M", 32},
             {"hidden", 1024},
             {"intermediate", 512},
             {"experts", 8},
             {"top_k", 2},
             {"bits", 4},
             {"group_size", 128}}};
  }

  // Per expert: gate, up and down, packed (at most a byte per weight, with scales and signs);
  // x, the routed intermediate and the output (half). The spec keeps each dense weight matrix
  // (float), its dequantized copy and the reference with its bounds (double).
  spec::Footprint footprint(const Params& p) const override {
    const uint64_t M = uint64_t(p.at("M")), H = uint64_t(p.at("hidden")),
                   I = uint64_t(p.at("intermediate"));
    const uint64_t weights = 3 * uint64_t(p.at("experts")) * H * I;
    const uint64_t routed = M * uint64_t(p.at("top_k")) * I;
    return {2 * weights + 2 * M * H * 2 + 2 * routed + 16 * M,
            20 * weights + 24 * (M * H + routed)};
  }

  std::unique_ptr<spec::PreparedCase> prepare(const Params& p,
                                              spec::CaseContext& ctx) const override {
    const MoeShape shape{
        uint32_t(p.at("M")),         uint32_t(p.at("hidden")), uint32_t(p.at("intermediate")),
        uint32_t(p.at("experts")),   uint32_t(p.at("top_k")),  uint32_t(p.at("bits")),
        uint32_t(p.at("group_size"))};
    return prepare_moe_case(std::make_shared<const MoeProblem>(make_moe_problem(shape, ctx.seed())),
                            ctx);
  }
};

METALSIM_REGISTER_SPEC_AS(
    prefill, GemmSpec, TrellisKernel::prefill,
    "C = A x W, W trellis-quantized (2-4 bit), 64x64 tiles, simdgroup_matrix");
METALSIM_REGISTER_SPEC_AS(decode, GemmSpec, TrellisKernel::decode,
                          "C = A x W, W trellis-quantized, 32x128 tiles for M <= 16");
METALSIM_REGISTER_SPEC_AS(prefill_as_documented, GemmSpec, TrellisKernel::prefill_as_documented,
                          "the prefill kernel with the Trellis document's dequantization sketch "
                          "as written (section 3.3)");
METALSIM_REGISTER_SPEC(MoeSpec);

}  // namespace
}  // namespace metalsim::kernels::trellis
