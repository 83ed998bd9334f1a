// The case-file fields that say what a real library's host code says (issue 25 item 1), over the
// library-shaped case files of case_files/library/ (kernels of ggml's and MLX's shape written
// here: headers under a root folder, function constants, a buffer bound twice, a buffer at a byte
// offset, struct fields of bool, vector, packed, nested and array types, float expressions),
// each against a double reference of its own (library_ref.cpp); and every new field's errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The copies beside liblsim_ref.so (tests/cli/CMakeLists.txt).
const std::string kCases = METALSIM_LIBRARY_CASES_DIR;
const std::string kSoftMaxMask = kCases + "/soft_max_mask.json";
const std::string kSoftMaxSinks = kCases + "/soft_max_nomask.json";
const std::string kGemv = kCases + "/gemv_axpby.json";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `original` changed by `edit`, written beside it (so its relative paths still hold).
std::string edited(const std::string& original, const std::string& name,
                   const std::function<void(json&)>& edit) {
  json j = json::parse(std::ifstream(original));
  edit(j);
  j["name"] = name;
  const fs::path path = fs::path(original).parent_path() / (name + ".json");
  std::ofstream(path) << j.dump(2);
  return path.string();
}

// ------------------------------ the library-shaped kernels pass against their references

TEST(LibraryCaseFiles, EachSweepChecksCleanAgainstItsReference) {
  for (const auto& [path, cases] : {std::pair{kSoftMaxMask, 4}, {kSoftMaxSinks, 3}, {kGemv, 4}}) {
    const CliRun r = cli({"check", path, "--workers", "2"});
    EXPECT_EQ(r.code, kExitOk) << path << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.out, std::to_string(cases) + " passed, 0 failed")) << r.out;
  }
}

TEST(LibraryCaseFiles, FuzzingFindsNoFailure) {
  for (const std::string& path : {kSoftMaxMask, kSoftMaxSinks, kGemv}) {
    const CliRun r = cli({"fuzz", path, "--cases", "4", "--seed", "3", "--workers", "2"});
    EXPECT_EQ(r.code, kExitOk) << path << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "4 passed, 0 failed")) << r.out;
  }
}

// The reference sees what the kernel must compute: a wrong epilogue value in the case file (the
// host's alpha off by a float rounding's worth of intent: 1/K instead of 1/sqrt(K)) fails.
TEST(LibraryCaseFiles, AWrongHostValueFailsAgainstTheReference) {
  const std::string path =
      edited(kGemv, "gemv_wrong_alpha", [](json& j) { j["let"]["alpha"] = "1.0 / float(K)"; });
  const CliRun r = cli({"run", path});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "status     FAIL")) << r.out;
}

// Without the alias the kernel takes src0's slot as a mask only if the case file binds one; with
// the mask buffer bound at offset 0 instead of past its padding rows, the reference disagrees.
TEST(LibraryCaseFiles, TheMaskIsReadFromItsByteOffset) {
  const std::string path = edited(kSoftMaxMask, "soft_max_no_offset", [](json& j) {
    j["buffers"][1].erase("offset");
    j["sweep"] = {{{"ne00", 67},
                   {"ne01", 3},
                   {"ne02", 5},
                   {"causal", 0},
                   {"max_bias_x4", 32},
                   {"mask_pad", 2}}};
  });
  const CliRun r = cli({"check", path});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
}

// float3 where the struct has packed_float3 keeps the size (float3 aligns to 16: the fields
// after it move, the padding shrinks, 64 bytes in all), so no size check can see it; the
// kernel reads the wrong fields, and the reference does.
TEST(LibraryCaseFiles, ALayoutMistakeOfTheSameSizeFailsAgainstTheReference) {
  const std::string path = edited(kGemv, "gemv_float3_bias",
                                  [](json& j) { j["bytes"][0]["fields"][3]["type"] = "float3"; });
  const CliRun r = cli({"run", path});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "status     FAIL")) << r.out;
}

// -I on the command line does what include_dirs does.
TEST(LibraryCaseFiles, IncludeDirectoriesFromTheCommandLine) {
  const std::string path =
      edited(kSoftMaxMask, "soft_max_no_include_dirs", [](json& j) { j.erase("include_dirs"); });
  const CliRun without = cli({"run", path});
  EXPECT_EQ(without.code, kExitUsage) << without.out << without.err;
  EXPECT_TRUE(contains(without.err, "does not compile")) << without.err;
  EXPECT_TRUE(contains(without.err, "lsim/kernels/params.h")) << without.err;

  const CliRun with = cli({"run", path, "-I", kCases + "/root"});
  EXPECT_EQ(with.code, kExitOk) << with.out << with.err;
  EXPECT_TRUE(contains(with.out, "status     pass")) << with.out;
  EXPECT_TRUE(contains(with.out, "-I " + kCases + "/root")) << with.out;  // in the repro
}

// A vector constant by name, a constant declared with a fixed-width type set by index, and one
// left unset (is_function_constant_defined is false): outputs worked out by hand.
TEST(LibraryCaseFiles, VectorAndFixedWidthFunctionConstants) {
  const fs::path dir = fs::temp_directory_path() / "metalsim_case_file_fields_test";
  fs::create_directories(dir);
  std::ofstream(dir / "fc.metal")
      << "#include <metal_stdlib>\nusing namespace metal;\n"
         "constant float2 offset_scale [[function_constant(3)]];\n"
         "constant int32_t extra [[function_constant(4)]];\n"
         "constant bool unset_flag [[function_constant(5)]];\n"
         "kernel void fc_affine(device const float* x [[buffer(0)]], device float* y "
         "[[buffer(1)]],\n"
         "                      uint i [[thread_position_in_grid]]) {\n"
         // A copy first: metalsim's function constants convert to their type, but do not
         // yet give a vector's members (`offset_scale.y`) directly.
         "  const float2 os = offset_scale;\n"
         "  y[i] = x[i] * os.y + os.x + float(extra) +\n"
         "         (is_function_constant_defined(unset_flag) ? 100.0f : 0.0f);\n}\n";
  const json j = {
      {"kernel", "fc_affine"},
      {"source", "fc.metal"},
      {"params", {{"n", {{"min", 1}, {"max", 8}, {"default", 4}}}, {"s", {{"choices", {2}}}}}},
      {"threads", {"n"}},
      {"threadgroup", {"n"}},
      {"buffers",
       {{{"name", "x"},
         {"index", 0},
         {"type", "float"},
         {"count", "n"},
         {"fill", {{"range", {1, 1}}}}},
        {{"name", "y"}, {"index", 1}, {"type", "float"}, {"count", "n"}, {"output", true}}}},
      {"function_constants",
       {{{"name", "offset_scale"}, {"value", {0.5, "s / 4.0"}}},
        {{"index", 4}, {"type", "int"}, {"value", "n - 1"}}}},
      {"compare_schedules", false}};
  std::ofstream(dir / "fc.json") << j.dump(2);
  const CliRun r = cli({"run", (dir / "fc.json").string(), "--print", "4"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  // y[i] = (i + 1) * 0.5 + 0.5 + 3
  EXPECT_TRUE(contains(r.out, "output     y (4 float): 4 4.5 5 5.5")) << r.out;
}

// ------------------------------ errors name the field

// The edited file is named after the running test: ctest runs these tests in parallel.
std::string error_of(const std::string& original, const std::function<void(json&)>& edit) {
  const std::string name =
      std::string("broken_") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const CliRun r = cli({"run", edited(original, name, edit)});
  EXPECT_EQ(r.code, kExitUsage) << r.out << r.err;
  return r.err;
}

TEST(CaseFileFieldErrors, BuffersAliasesAndOffsets) {
  EXPECT_TRUE(contains(
      error_of(kGemv, [](json& j) { j["buffers"][2]["alias"] = "z"; }),
      "broken_BuffersAliasesAndOffsets.json: buffers[2].alias: no buffer is named 'z' (the "
      "buffers: W, x, y)"));
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["buffers"][2]["index"] = 3; }),
                       "buffers[2].index: buffer(3) is bound twice"));
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["buffers"][2]["type"] = "float"; }),
                       "buffers[2]: unknown field \"type\" (known: index, alias, offset)"));
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["buffers"][0]["offset"] = "M * Q"; }),
                       "buffers[0].offset: expression 'M * Q' reads 'Q', which is not a "
                       "parameter or a let"));
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["buffers"][0]["offset"] = "1 << 30"; }),
                       "buffers[0].offset: 1073741824 is outside the buffer's"));
}

TEST(CaseFileFieldErrors, BytesFields) {
  auto field = [](size_t i, const char* key, json value) {
    return [=](json& j) { j["bytes"][0]["fields"][i][key] = value; };
  };
  EXPECT_TRUE(contains(error_of(kGemv, field(0, "type", "uint5")),
                       "bytes[0].fields[0].type: unknown type \"uint5\""));
  EXPECT_TRUE(contains(error_of(kGemv, field(1, "value", {"alpha"})),
                       "bytes[0].fields[1].value: float2 needs a list of 2 values"));
  EXPECT_TRUE(contains(error_of(kGemv, field(5, "value", {1.0, 2.0, 3.0})),
                       "bytes[0].fields[5].value: float[2] needs a list of 2 elements"));
  EXPECT_TRUE(contains(error_of(kGemv, field(2, "value", json::object())),
                       "bytes[0].fields[2].value: must be a number, true/false, or an expression"));
  // A struct that is not the kernel's: a field left out (48 bytes, the kernel's 64).
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["bytes"][0]["fields"].erase(5); }),
                       "bytes[0]: the values take 48 bytes as MSL lays them out; argument "
                       "'params' (constant lsim_gemv_params&) is 64 bytes in kernel "
                       "'lsim_gemv_axpby'"));
  // A float where the struct has an integer: the case is invalid, the field named.
  EXPECT_TRUE(contains(
      error_of(kGemv,
               [](json& j) { j["bytes"][0]["fields"][0]["value"] = {"M", "K / 2.0", "ld"}; }),
      "bytes[0].fields[0].value: gives 35, a float, for uint"));
}

TEST(CaseFileFieldErrors, FunctionConstants) {
  auto constant = [](json c) { return [=](json& j) { j["function_constants"][0] = c; }; };
  EXPECT_TRUE(contains(error_of(kGemv, constant({{"name", "nope"}, {"value", 1}})),
                       "function_constants[0].name: the source declares no function constant "
                       "'nope' (it declares: bool do_axpby [[function_constant(10)]], short "
                       "FC_gemv_nsg [[function_constant(200)]])"));
  EXPECT_TRUE(contains(error_of(kGemv, constant({{"index", 7}, {"value", 1}})),
                       "function_constants[0].index: the source declares no function constant "
                       "with index 7"));
  EXPECT_TRUE(
      contains(error_of(kGemv, constant({{"name", "do_axpby"}, {"type", "int"}, {"value", 1}})),
               "function_constants[0].type: 'do_axpby' is declared bool, not int"));
  EXPECT_TRUE(contains(error_of(kGemv, constant({{"name", "do_axpby"}, {"value", {1, 0}}})),
                       "function_constants[0].value: bool needs 1 value"));
  EXPECT_TRUE(contains(error_of(kGemv, constant({{"name", "do_axpby"}, {"index", 10}})),
                       "function_constants[0]: needs \"name\" or \"index\""));
  EXPECT_TRUE(contains(
      error_of(kGemv, [](json& j) { j["function_constants"][1] = {{"index", 10}, {"value", 1}}; }),
      "function_constants[1]: 'do_axpby' is given twice"));
  // A value that cannot be evaluated for a case makes that case invalid, the field named.
  const std::string divides = edited(kGemv, "gemv_fc_divides", [](json& j) {
    j["function_constants"][1]["value"] = "nsg / (nsg - 4)";
  });
  const CliRun r = cli({"run", divides, "--nsg=4"});
  EXPECT_EQ(r.code, kExitUsage) << r.out << r.err;
  EXPECT_TRUE(contains(r.err,
                       "gemv_fc_divides.json: function_constants[1].value: expression "
                       "'nsg / (nsg - 4)': division by zero"))
      << r.err;
  // The sinks argument exists when its function constant is true: it must then be bound.
  EXPECT_TRUE(contains(error_of(kSoftMaxSinks, [](json& j) { j["buffers"].erase(2); }),
                       "kernel: argument 'src2' (device const float* [[buffer(3)]]) of kernel "
                       "'lsim_soft_max_f32' is bound by nothing in buffers or bytes"));
}

TEST(CaseFileFieldErrors, LetsAndIncludeDirs) {
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["let"]["ld"] = "alpha2 + 1"; }),
                       "let.ld: expression 'alpha2 + 1' reads 'alpha2', which is not a "
                       "parameter or a let"));
  EXPECT_TRUE(contains(error_of(kGemv,
                                [](json& j) {
                                  j["let"]["ld"] = "alpha";
                                  j["let"]["alpha"] = "ld * 1.0";
                                }),
                       "let: 'alpha' is defined through itself"));
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["let"]["M"] = 3; }),
                       "let.M: a parameter has this name already"));
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["include_dirs"] = {"nowhere"}; }),
                       "include_dirs[0]: no directory " + kCases + "/nowhere"));
  // ld is read as an integer (a size): a float let there is an error of the case, named.
  EXPECT_TRUE(contains(error_of(kGemv, [](json& j) { j["let"]["ld"] = "K + 0.5"; }),
                       "where an integer is needed"));
}

}  // namespace
}  // namespace metalsim::cli::testing
