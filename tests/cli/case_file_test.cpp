// Case files: a user's tiled matmul (case_files/matmul.metal) run, checked and fuzzed through
// the program with no C++ of the user's; its planted bugs found with their check and line;
// expressions; errors that name the field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "host/cli/expression.h"
#include "simt/engine/dispatch.h"
#include "simt/engine/kernel_variants.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kDir = METALSIM_CASE_FILES_DIR;
const std::string kMatmul = kDir + "/matmul.json";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The line of matmul.metal holding `marker` (1-based).
int metal_line(const std::string& marker) {
  std::ifstream in(kDir + "/matmul.metal");
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (contains(line, marker)) return n;
  }
  return -1;
}

// matmul.json changed by `edit`, written to a fresh directory.
std::string edited_case_file(const std::string& name, const std::function<void(json&)>& edit) {
  json j = json::parse(std::ifstream(kMatmul));
  edit(j);
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_test";
  fs::create_directories(dir);
  const fs::path path = dir / (name + ".json");
  std::ofstream(path) << j.dump(2);
  return path.string();
}

// ------------------------------ expressions

TEST(Expression, PrecedenceFunctionsAndParameters) {
  const spec::Params p = {{"M", 33}, {"N", 17}, {"tile", 16}};
  EXPECT_EQ(Expression::parse("ceil_div(N, tile) * tile").evaluate(p), 32);
  EXPECT_EQ(Expression::parse("M * N + 1").evaluate(p), 33 * 17 + 1);
  EXPECT_EQ(Expression::parse("(M + N) * 2 - max(M, N) / min(4, tile)").evaluate(p), 100 - 8);
  EXPECT_EQ(Expression::parse("M % tile == 1 && !(N < 2) || 0").evaluate(p), 1);
  EXPECT_EQ(Expression::parse("-M + 40").evaluate(p), 7);
  EXPECT_EQ(Expression::parse("ceil_div(0, 16)").evaluate(p), 0);
  EXPECT_EQ(Expression::parse("M * N").names(), (std::vector<std::string>{"M", "N"}));
}

TEST(Expression, ErrorsSayWhereAndWhat) {
  auto message = [](const std::string& text, const spec::Params& p = {}) {
    try {
      Expression::parse(text).evaluate(p);
    } catch (const ExpressionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_TRUE(contains(message("M * "), "column 5")) << message("M * ");
  EXPECT_TRUE(contains(message("round(M, 2)"), "unknown function 'round'"));
  EXPECT_TRUE(contains(message("(M + 1"), "expected ')'"));
  EXPECT_TRUE(contains(message("M / N", {{"M", 1}, {"N", 0}}), "division by zero"));
  EXPECT_TRUE(contains(message("Q + 1", {{"M", 1}}), "no parameter named 'Q'"));
  EXPECT_TRUE(contains(message("ceil_div(4, 0)"), "ceil_div by 0"));
}

// ------------------------------ run

TEST(CaseFile, RunsTheTiledMatmulAgainstTheNaiveKernel) {
  const CliRun r = cli({"run", kMatmul, "--M=33", "--N", "17", "--K=40", "--seed", "3"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "case       matmul_tiled(K=40,M=33,N=17,tile=16)")) << r.out;
  EXPECT_TRUE(contains(r.out, "status     pass")) << r.out;
  EXPECT_TRUE(contains(r.out, "over 561 elements (unwritten 0, non-finite 0)")) << r.out;
  EXPECT_TRUE(contains(
      r.out, "reproduce  metalsim run " + kMatmul + " --K=40 --M=33 --N=17 --tile=16 --seed 3"))
      << r.out;
}

TEST(CaseFile, EverySweepCaseAndTileSizePasses) {
  for (const char* tile : {"4", "8", "16"})
    for (const auto& [m, n, k] :
         {std::tuple{"1", "1", "1"}, {"16", "16", "16"}, {"17", "15", "33"}}) {
      const CliRun r = cli({"run", kMatmul, std::string("--M=") + m, std::string("--N=") + n,
                            std::string("--K=") + k, std::string("--tile=") + tile});
      EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
    }
}

TEST(CaseFile, AReferenceInASharedObject) {
  const std::string path = edited_case_file("matmul_so", [](json& j) {
    j["reference"] = {{"library", METALSIM_CASE_FILE_REFERENCE}, {"function", "matmul_ref"}};
    j["tolerance"] = {{"abs", 0}, {"rel", 1e-5}, {"why", "float sums against double"}};
  });
  const CliRun r = cli({"run", path, "--M=20", "--N=9", "--K=70"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "over 180 elements")) << r.out;
}

// A reference library named relative to the case file, with the case file named from its own
// folder (`metalsim run case.json`): loaded from that folder, not searched for among the
// system's libraries.
TEST(CaseFile, AReferenceBesideTheCaseFileLoadsFromItsOwnFolder) {
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_reference_here";
  fs::create_directories(dir);
  fs::copy_file(METALSIM_CASE_FILE_REFERENCE, dir / "libmatmul_ref.so",
                fs::copy_options::overwrite_existing);
  json j = json::parse(std::ifstream(kMatmul));
  j["reference"] = {{"library", "libmatmul_ref.so"}, {"function", "matmul_ref"}};
  j["tolerance"] = {{"abs", 0}, {"rel", 1e-5}, {"why", "float sums against double"}};
  std::ofstream(dir / "here.json") << j.dump(2);
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  const CliRun r = cli({"run", "here.json", "--M=20", "--N=9", "--K=70"});
  fs::current_path(before);
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "over 180 elements")) << r.out;
}

TEST(CaseFile, OptionsAloneDescribeACase) {
  const std::string metal = kDir + "/matmul.metal";
  const fs::path save = fs::temp_directory_path() / "metalsim_case_file_test" / "saved";
  fs::remove_all(save);
  const CliRun r = cli({"run",
                        metal,
                        "--kernel",
                        "matmul_naive",
                        "--threads",
                        "N,M",
                        "--threadgroup",
                        "8,8",
                        "--buffer",
                        "0:float:M*K:range(1,1)",
                        "--buffer",
                        "1:float:K*N:const(0.5)",
                        "--buffer",
                        "2:float:M*N:out",
                        "--bytes",
                        "3:uint:M,N,K",
                        "--M=2",
                        "--N=3",
                        "--K=4",
                        "--print",
                        "6",
                        "--save",
                        save.string()});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  // Row i of A is 4i+1 .. 4i+4; B is all 0.5: C[i][j] = (16i + 10) / 2.
  EXPECT_TRUE(contains(r.out, "output     C (6 float): 5 5 5 13 13 13")) << r.out;
  EXPECT_EQ(fs::file_size(save / "C.bin"), 6 * sizeof(float));
  EXPECT_TRUE(contains(r.out, "--kernel matmul_naive --threads N,M")) << r.out;
}

// The case file names its .metal file: it is compiled at run time (Device::newLibrary), not
// taken from the kernels linked into the test.
TEST(CaseFile, CompilesItsSourceAtRunTime) {
  const std::string path =
      edited_case_file("matmul_source", [](json& j) { j["source"] = kDir + "/matmul.metal"; });
  const CliRun r = cli({"run", path, "--M=9", "--N=7", "--K=5", "--tile=4"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "status     pass")) << r.out;
}

// Each math mode compiles the source and checks clean on fibers and in lane loops, whose outputs
// are compared byte for byte in every math mode (cmake/MetalsimMathMode.cmake).
TEST(CaseFile, EveryMathModeChecksCleanInBothModes) {
  for (const char* mode : {"safe", "relaxed", "fast"}) {
    const std::string path = edited_case_file(std::string("matmul_math_") + mode, [&](json& j) {
      j["name"] = std::string("matmul_math_") + mode;
      j["source"] = kDir + "/matmul.metal";
      j["math_mode"] = mode;
      j["tolerance"] = {{"abs", 0}, {"rel", 1e-5}, {"why", "contraction in relaxed math"}};
    });
    const CliRun r = cli({"check", path});
    EXPECT_EQ(r.code, kExitOk) << mode << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "3 passed, 0 failed")) << mode << "\n" << r.out;
  }
}

// ------------------------------ fast math: one result whatever the mode, schedule or workers

const std::string kGgmlRmsNorm = kDir + "/ggml_rms_norm.json";
const std::string kGgmlMulMv = kDir + "/ggml_mul_mv.json";

// Issue 28 item 6: kernels of ggml's shape (per-lane strided loops, simd_sum, threadgroup memory),
// race-free, in Metal's default fast math. Before, lane loops and fibers compiled them into code
// that rounded differently (reassociation with reciprocals), so `check` failed them with
// race.schedule (its reversed schedule runs on fibers) and mode.divergent. Now every case's
// outputs must be bit-identical on fibers and in lane loops, reversed, and on 1 and 2 workers.
TEST(CaseFile, GgmlShapedKernelsInFastMathGiveOneResultInEveryModeAndSchedule) {
  const CliRun r = cli({"check", kGgmlRmsNorm, kGgmlMulMv});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "8 passed, 0 failed")) << r.out;
  EXPECT_FALSE(contains(r.out, "race.schedule")) << r.out;
  EXPECT_FALSE(contains(r.out, "mode.divergent")) << r.out;
}

// The same kernels fuzzed in lane loops (sync,mem: the fuzzer's default), each case's outputs
// compared with a reversed run on fibers and a run on another worker count.
TEST(CaseFile, FuzzingFastMathCaseFilesFindsNoFalseFailure) {
  for (const std::string& path : {kGgmlRmsNorm, kGgmlMulMv}) {
    const CliRun r = cli({"fuzz", path, "--cases", "12", "--seed", "7", "--limit", "512"});
    EXPECT_EQ(r.code, kExitOk) << path << "\n" << r.out << r.err;
    EXPECT_FALSE(contains(r.out, "FAIL")) << r.out;
  }
}

// --mode is obeyed by check: fibers alone, lane loops alone, or (auto) both, compared.
TEST(CaseFile, CheckRunsOnlyTheModeItIsGiven) {
  const uint64_t loops_before = engine::lane_loop_threadgroups_total();
  const CliRun fibers = cli({"check", kGgmlMulMv, "--mode", "fibers"});
  EXPECT_EQ(fibers.code, kExitOk) << fibers.out << fibers.err;
  EXPECT_EQ(engine::lane_loop_threadgroups_total(), loops_before) << "lane loops ran";

  const CliRun both = cli({"check", kGgmlMulMv, "--checks", "sync,mem"});
  EXPECT_EQ(both.code, kExitOk) << both.out << both.err;
  EXPECT_GT(engine::lane_loop_threadgroups_total(), loops_before) << "auto ran no lane loop";

  const uint64_t fibers_before = engine::fibers_started_total();
  const CliRun loops = cli({"check", kGgmlMulMv, "--mode", "loops", "--checks", "sync,mem"});
  EXPECT_EQ(loops.code, kExitOk) << loops.out << loops.err;
  // The reference kernel (one thread per row, no sync point) never needs a fiber either.
  EXPECT_EQ(engine::fibers_started_total(), fibers_before) << "fibers ran";
}

// docs/checks.md and docs/lanes.md: --mode loops for a kernel the lane-loop pass cannot transform
// (here, a barrier reached through recursion) is refused with mode.unavailable and the reason;
// --mode auto runs it on fibers.
TEST(CaseFile, ModeLoopsRefusesAKernelWithoutLaneLoopsAndSaysWhy) {
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_test";
  fs::create_directories(dir);
  const fs::path metal = dir / "recursive_barrier.metal";
  std::ofstream(metal)
      << "#include <metal_stdlib>\nusing namespace metal;\n"
         "float depth(int d) {\n"
         "  if (d == 0) { threadgroup_barrier(mem_flags::mem_none); return 1.0f; }\n"
         "  return depth(d - 1) + 1.0f;\n}\n"
         "kernel void recursive_barrier(device float* out [[buffer(0)]],\n"
         "    uint i [[thread_position_in_grid]]) {\n"
         "  out[i] = depth(2) + float(i);\n}\n";
  json j;
  j["kernel"] = "recursive_barrier";
  j["source"] = metal.string();
  j["params"] = {{"n", {{"min", 1}, {"max", 64}, {"default", 32}}}};
  j["threads"] = {"n"};
  j["threadgroup"] = {"n"};
  j["buffers"] = {
      {{"name", "out"}, {"index", 0}, {"type", "float"}, {"count", "n"}, {"output", true}}};
  j["compare_schedules"] = false;
  const fs::path path = dir / "recursive_barrier.json";
  std::ofstream(path) << j.dump(2);

  const CliRun loops = cli({"run", path.string(), "--mode", "loops", "--checks", "sync,mem"});
  EXPECT_EQ(loops.code, kExitFailed) << loops.out << loops.err;
  EXPECT_TRUE(contains(loops.out, "mode.unavailable")) << loops.out;
  EXPECT_TRUE(contains(loops.out, "recurs")) << loops.out;

  const CliRun automatic = cli({"run", path.string(), "--checks", "sync,mem"});
  EXPECT_EQ(automatic.code, kExitOk) << automatic.out << automatic.err;
}

TEST(CaseFile, ASourceThatDoesNotCompileIsAnErrorWithItsLine) {
  const fs::path metal = fs::temp_directory_path() / "metalsim_case_file_test" / "broken.metal";
  fs::create_directories(metal.parent_path());
  std::ofstream(metal) << "#include <metal_stdlib>\nusing namespace metal;\n"
                          "kernel void matmul_tiled(device float* C [[buffer(0)]]) {\n"
                          "  C[0] = undeclared_name;\n}\n";
  const std::string path =
      edited_case_file("matmul_broken", [&](json& j) { j["source"] = metal.string(); });
  const CliRun r = cli({"run", path});
  EXPECT_EQ(r.code, kExitUsage) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "source: " + metal.string() + " does not compile")) << r.err;
  EXPECT_TRUE(contains(r.err, "broken.metal:4")) << r.err;
}

// ------------------------------ planted bugs, with their check and line

TEST(CaseFile, TheOffByOneIsABoundsErrorAtItsLine) {
  const CliRun r =
      cli({"run", kMatmul, "--kernel", "matmul_off_by_one", "--M=5", "--N=3", "--K=5", "--tile=4"});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "bounds.device")) << r.out;
  const int line = metal_line("ka <= s.K");
  EXPECT_TRUE(contains(r.out, "matmul.metal:" + std::to_string(line))) << r.out;
}

TEST(CaseFile, TheMissingBarrierIsAnUninitialisedReadAtItsLine) {
  const CliRun r = cli({"run", kMatmul, "--kernel", "matmul_missing_barrier", "--M=8", "--N=8",
                        "--K=8", "--tile=8", "--checks", "sync,init,mem"});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "uninit.threadgroup")) << r.out;
  // The read of the tile, in the kernel without the barrier (the last such line before the
  // off-by-one kernel).
  std::ifstream in(kDir + "/matmul.metal");
  int n = 0, line = 0;
  bool inside = false;
  for (std::string text; std::getline(in, text);) {
    ++n;
    if (contains(text, "kernel void matmul_missing_barrier")) inside = true;
    if (contains(text, "kernel void matmul_off_by_one")) inside = false;
    if (inside && contains(text, "sum += As[")) line = n;
  }
  EXPECT_TRUE(contains(r.out, "matmul.metal:" + std::to_string(line))) << r.out;
}

// ------------------------------ fuzz

TEST(CaseFile, FuzzPassesTheCorrectKernel) {
  const CliRun r = cli({"fuzz", kMatmul, "--cases", "6", "--seed", "1", "--limit", "40"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "6 passed, 0 failed")) << r.out;
}

TEST(CaseFile, FuzzFindsTheOffByOneAndShrinksIt) {
  const CliRun r = cli({"fuzz", kMatmul, "--kernel", "matmul_off_by_one", "--cases", "3", "--seed",
                        "1", "--limit", "24", "--max-shrink-runs", "40"});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "bounds.device")) << r.out;
  // A one-line repro naming the case file and the kernel.
  const std::regex repro("reproduce: metalsim run " + kMatmul +
                         " --kernel matmul_off_by_one --K=\\d+ --M=\\d+ --N=\\d+ --tile=\\d+ "
                         "--seed \\d+ --schedule in-order");
  EXPECT_TRUE(std::regex_search(r.out, repro)) << r.out;
}

TEST(CaseFile, WithoutAReferenceTheOraclesFindTheMissingBarrier) {
  const std::string path = edited_case_file("matmul_oracles", [](json& j) {
    j.erase("reference");
    j.erase("tolerance");
    j["kernel"] = "matmul_missing_barrier";
  });
  const CliRun r = cli(
      {"fuzz", path, "--cases", "2", "--seed", "1", "--limit", "16", "--max-shrink-runs", "20"});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "race.schedule")) << r.out;
}

TEST(CaseFile, EquivalentTileSizesMustAgree) {
  // matmul_missing_barrier reads stale tiles: its result depends on the tile size too, in lane
  // loops as on fibers.
  const std::string path = edited_case_file("matmul_equivalent", [](json& j) {
    j.erase("reference");
    j.erase("tolerance");
    j["compare_schedules"] = false;
    j["kernel"] = "matmul_missing_barrier";
  });
  const CliRun r =
      cli({"run", path, "--M=9", "--N=9", "--K=9", "--tile=8", "--checks", "sync,mem"});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "equivalent tile=")) << r.out;
}

// ------------------------------ check

TEST(CaseFile, CheckRunsTheSweepInBothModes) {
  const CliRun r = cli({"check", kMatmul});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("matmul_tiled +3 +[0-9.]+x +sync,init,mem")))
      << r.out;
  EXPECT_TRUE(contains(r.out, "3 passed, 0 failed")) << r.out;
}

TEST(CaseFile, CheckFindsTheMissingBarrierInTheSweep) {
  const std::string path = edited_case_file("matmul_check_barrier", [](json& j) {
    j.erase("reference");
    j.erase("tolerance");
    j["name"] = "matmul_check_barrier";
    j["kernel"] = "matmul_missing_barrier";
  });
  const CliRun r = cli({"check", path});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "matmul_check_barrier")) << r.out;
  EXPECT_TRUE(contains(r.out, "reproduce: metalsim run " + path)) << r.out;
}

TEST(CaseFile, CheckTakesSeveralCaseFilesAndTheirOptions) {
  const std::string other = edited_case_file("matmul_check_other", [](json& j) {
    j["name"] = "matmul_check_other";
    j["sweep"] = {{{"M", 5}, {"N", 6}, {"K", 7}}};
  });
  const CliRun r = cli({"check", kMatmul, other, "--threadgroup-memory", "1:1024"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "matmul_check_other")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 passed, 0 failed")) << r.out;
}

TEST(CaseFile, AReferenceDispatchWithoutAThreadgroupTakesTheCases) {
  const std::string path = edited_case_file("matmul_reference_threads", [](json& j) {
    j["reference"] = {{"kernel", "matmul_naive"}, {"threads", {"N", "M"}}};
  });
  const CliRun r = cli({"run", path, "--M=20", "--N=9", "--K=7"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "over 180 elements (unwritten 0")) << r.out;
}

// ------------------------------ corpus

TEST(CaseFile, ACorpusEntryCarriesItsCaseFileAndReplaysWithoutIt) {
  const std::string path = edited_case_file("matmul_corpus", [](json& j) {
    j.erase("reference");
    j.erase("tolerance");
    j["name"] = "matmul_corpus";
    j["kernel"] = "matmul_missing_barrier";
  });
  const fs::path corpus = fs::path(path).parent_path() / "corpus";
  fs::remove_all(corpus);
  // With initcheck: without it the kernel's stale reads see what the worker's previous
  // threadgroup left (docs/checks.md), and a shrunk case need not fail again on a fresh start.
  const CliRun found =
      cli({"fuzz", path, "--cases", "2", "--seed", "1", "--limit", "16", "--max-shrink-runs", "20",
           "--checks", "sync,init,mem", "--corpus", corpus.string()});
  ASSERT_EQ(found.code, kExitFailed) << found.out << found.err;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(corpus)) entries.push_back(e.path());
  ASSERT_FALSE(entries.empty()) << found.out;
  const json entry = json::parse(std::ifstream(entries.front()));
  EXPECT_EQ(entry.at("case_file").at("origin"), fs::absolute(path).string());
  EXPECT_EQ(entry.at("case_file").at("json").at("kernel"), "matmul_missing_barrier");

  fs::remove(path);  // the entry holds the case file: replay needs only the kernels
  const CliRun still = cli({"fuzz", "--replay", corpus.string()});
  EXPECT_EQ(still.code, kExitFailed) << still.out << still.err;
  EXPECT_TRUE(contains(still.out, "STILL FAILS")) << still.out;

  // The kernel fixed (the stored case file now names the correct one): the entry passes.
  for (const fs::path& e : entries) {
    json j = json::parse(std::ifstream(e));
    j["case_file"]["json"]["kernel"] = "matmul_tiled";
    std::ofstream(e) << j.dump(2);
  }
  const CliRun fixed = cli({"fuzz", "--replay", corpus.string()});
  EXPECT_EQ(fixed.code, kExitOk) << fixed.out << fixed.err;
  EXPECT_TRUE(contains(fixed.out, "fixed")) << fixed.out;
}

// ------------------------------ errors name the field

std::string error_of(const std::function<void(json&)>& edit) {
  const CliRun r = cli({"run", edited_case_file("broken", edit)});
  EXPECT_EQ(r.code, kExitUsage) << r.out << r.err;
  return r.err;
}

TEST(CaseFile, ErrorsNameTheField) {
  EXPECT_TRUE(contains(error_of([](json& j) { j["buffers"][2]["count"] = "M * Q"; }),
                       "buffers[2].count: expression 'M * Q' reads 'Q', which is not a parameter"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["buffers"][0]["type"] = "double"; }),
                       "buffers[0].type: unknown type \"double\""));
  EXPECT_TRUE(contains(error_of([](json& j) { j["buffers"][1]["fill"] = {{"random", {1}}}; }),
                       "buffers[1].fill.random: must be [first, second]"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["params"]["M"]["max"] = "many"; }),
                       "params.M.max: must be an integer"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["grid"] = {"ceil_div(N, tile"}; }),
                       "grid[0]: expression 'ceil_div(N, tile' at column 17: expected ')'"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["buffers"][2]["index"] = 5; }),
                       "buffers[2].index: no argument of kernel 'matmul_tiled' is [[buffer(5)]]"));
  EXPECT_TRUE(
      contains(error_of([](json& j) { j["bytes"][0]["index"] = 2; }), "buffer(2) is bound twice"));
  EXPECT_TRUE(contains(error_of([](json& j) { j.erase("threadgroup_memory"); }),
                       "argument 'As' (threadgroup float* [[threadgroup(0)]]) of kernel "
                       "'matmul_tiled' is bound by nothing in threadgroup_memory"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["kernel"] = "matmul_nowhere"; }),
                       "kernel: no kernel named 'matmul_nowhere'"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["buffers"][0]["output"] = true; }),
                       "buffers[0].output: argument 'A' (device const float*) is const"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["colour"] = 1; }), "unknown field \"colour\""));
  EXPECT_TRUE(contains(error_of([](json& j) { j["math_mode"] = "exact"; }),
                       "math_mode: \"exact\" is not a math mode (fast, relaxed, safe)"));
}

// A kernel with an argument under [[function_constant(c)]]: with c false the argument does not
// exist (as on Metal) and needs no binding. The kernel reads c with no default, so, as Metal's
// specialisation requires, a case file that gives no value is refused naming it.
TEST(CaseFile, AnArgumentUnderAFalseFunctionConstantNeedsNoBinding) {
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_test";
  fs::create_directories(dir);
  std::ofstream(dir / "optional.metal")
      << "#include <metal_stdlib>\nusing namespace metal;\n"
         "constant bool debug_out [[function_constant(0)]];\n"
         "kernel void twice(device const float* x [[buffer(0)]], device float* y [[buffer(1)]],\n"
         "                  device float* dbg [[buffer(2), function_constant(debug_out)]],\n"
         "                  uint i [[thread_position_in_grid]]) {\n"
         "  y[i] = 2.0f * x[i];\n  if (debug_out) dbg[i] = x[i];\n}\n"
         "kernel void twice_ref(device const float* x [[buffer(0)]], device float* y "
         "[[buffer(1)]],\n"
         "                      uint i [[thread_position_in_grid]]) {\n  y[i] = x[i] + x[i];\n}\n";
  const json j = {{"kernel", "twice"},
                  {"source", (dir / "optional.metal").string()},
                  {"params", {{"groups", {{"min", 1}, {"max", 4}, {"default", 3}}}}},
                  {"grid", {"groups"}},
                  {"threadgroup", {32}},
                  {"buffers",
                   {{{"name", "x"},
                     {"index", 0},
                     {"type", "float"},
                     {"count", "groups * 32"},
                     {"fill", {{"random", {-1, 1}}}}},
                    {{"name", "y"},
                     {"index", 1},
                     {"type", "float"},
                     {"count", "groups * 32"},
                     {"output", true}}}},
                  {"reference", {{"kernel", "twice_ref"}}},
                  {"tolerance", {{"abs", 0}, {"rel", 0}, {"why", "2x and x + x are both exact"}}}};
  std::ofstream(dir / "optional.json") << j.dump(2);
  CliRun r = cli({"run", (dir / "optional.json").string()});
  EXPECT_NE(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "function constant 'debug_out' (bool at index 0) has no value"))
      << r.err;
  json with_value = j;
  with_value["function_constants"] = {{{"name", "debug_out"}, {"value", false}}};
  std::ofstream(dir / "optional.json") << with_value.dump(2);
  r = cli({"run", (dir / "optional.json").string()});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "status     pass")) << r.out;
}

// constant_inactive.json `j` (written to `path`) with fc_mode 1: refused while nothing binds the
// bias it then reads, naming it; with the bias buffer added, every case passes.
void expect_fc_mode_1_needs_bias(json j, const fs::path& path) {
  j["function_constants"][0]["value"] = 1;
  std::ofstream(path) << j.dump(2);
  CliRun r = cli({"check", path.string(), "--workers", "2"});
  EXPECT_NE(r.code, kExitOk);
  EXPECT_TRUE(contains(r.err + r.out,
                       "kernel: argument 'bias' (device const float* [[buffer(1)]]) "
                       "of kernel 'scale_or_bias' is bound by nothing in buffers "
                       "or bytes"))
      << r.out << r.err;

  j["buffers"].push_back({{"name", "bias"},
                          {"index", 1},
                          {"type", "float"},
                          {"count", "groups * 32"},
                          {"fill", {{"random", {-1, 1}}}}});
  std::ofstream(path) << j.dump(2);
  r = cli({"check", path.string(), "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "2 passed, 0 failed")) << r.out;
}

// Which arguments a case file must bind follows the specialised function (issue 25): with
// fc_mode 0, constant_inactive.metal's kernel never reads `bias` (the constant is compiled in and
// the branch folded away), so the case file binds none and passes; with fc_mode 1 the same case
// file is refused naming `bias`, and passes once it binds it.
TEST(CaseFile, ACaseFileBindsWhatTheSpecialisedFunctionReads) {
  if (!engine::fast_variants_built())
    GTEST_SKIP() << "kernels built without the access-check pass (which finds the reads)";
  const std::string inactive = kDir + "/constant_inactive.json";
  CliRun r = cli({"check", inactive, "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "2 passed, 0 failed")) << r.out;

  json j = json::parse(std::ifstream(inactive));
  j["source"] = kDir + "/constant_inactive.metal";
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_test";
  fs::create_directories(dir);
  expect_fc_mode_1_needs_bias(j, dir / "constant_active.json");
}

// The same case file with no "source": constant_inactive.metal linked into this test at build
// time, compiled before any value of fc_mode is known. As Metal's specialisation (and the run-time
// compile above) decides it, fc_mode 0 leaves `bias` inactive (bound by nothing: the cases run
// and match the reference) and fc_mode 1 needs it (named when unbound).
TEST(CaseFile, ALinkedKernelBindsWhatItsFunctionConstantsRead) {
  if (!engine::fast_variants_built())
    GTEST_SKIP() << "kernels built without the access-check pass (which finds the reads)";
  json j = json::parse(std::ifstream(kDir + "/constant_inactive.json"));
  j.erase("source");
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_test";
  fs::create_directories(dir);
  const fs::path path = dir / "constant_linked.json";
  std::ofstream(path) << j.dump(2);
  CliRun r = cli({"check", path.string(), "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "2 passed, 0 failed")) << r.out;

  expect_fc_mode_1_needs_bias(j, path);
}

// A case file whose source declares function constants compiles each kernel once, specialised
// (the names compile, then the kernel and the reference kernel specialised with fc_mode 0), not
// also unspecialised first: three shared objects in a fresh cache.
TEST(CaseFile, ACaseWithFunctionConstantsCompilesEachFunctionOnce) {
  json j = json::parse(std::ifstream(kDir + "/constant_inactive.json"));
  j["source"] = kDir + "/constant_inactive.metal";
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_test_once";
  fs::remove_all(dir);
  fs::create_directories(dir / "cache");
  std::ofstream(dir / "constant_once.json") << j.dump(2);
  const char* before = std::getenv("XDG_CACHE_HOME");
  const std::string saved = before != nullptr ? before : "";
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const CliRun r = cli({"check", (dir / "constant_once.json").string(), "--workers", "2"});
  if (before != nullptr) {
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    unsetenv("XDG_CACHE_HOME");
  }
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  std::vector<std::string> objects;
  for (const auto& e : fs::recursive_directory_iterator(dir / "cache"))
    if (e.path().extension() == ".so") objects.push_back(e.path().filename().string());
  EXPECT_EQ(objects.size(), 3U) << ::testing::PrintToString(objects);
  fs::remove_all(dir);
}

TEST(CaseFile, AnUnknownParameterOnTheCommandLineIsAUsageError) {
  const CliRun r = cli({"run", kMatmul, "--Q=3"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_TRUE(contains(r.err, "matmul_tiled has no parameter 'Q'")) << r.err;
}

}  // namespace
}  // namespace metalsim::cli::testing
