// Buffers typed by their data, not by the kernel's pointer (issue 25 item 6). ggml's kernels take
// every buffer as `device const char *`; case_files/ggml_q4_0.json binds Q4_0 blocks with finite
// scales ({"blocks": "q4_0"}) and float vectors to such arguments, and is checked against a
// serial reference kernel. A pointer that does carry an element type still refuses a buffer that
// does not tile it, and the blocks fill's own errors name the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "host/cli/block_fill.h"
#include "kernels/formats/ggml_dequantize.h"

namespace metalsim::cli::testing {
namespace {

namespace fs = std::filesystem;
namespace formats = kernels::formats;
using json = nlohmann::json;

const std::string kDir = METALSIM_CASE_FILES_DIR;
const std::string kQ4_0 = kDir + "/ggml_q4_0.json";
const std::string kMatmul = kDir + "/matmul.json";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `original` changed by `edit`, its source made absolute, written to a temporary folder under a
// name of the running test's own (ctest runs tests in parallel).
std::string edited(const std::string& original, const std::function<void(json&)>& edit) {
  json j = json::parse(std::ifstream(original));
  if (j.contains("source"))
    j["source"] = (fs::path(original).parent_path() / j["source"].get<std::string>()).string();
  edit(j);
  const fs::path dir = fs::temp_directory_path() / "metalsim_typed_buffers_test";
  fs::create_directories(dir);
  const fs::path path =
      dir /
      (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
  std::ofstream(path) << j.dump(2);
  return path.string();
}

TEST(TypedBuffers, FloatsAndQ4_0BlocksBehindCharPointersCheckCleanAgainstTheReference) {
  const CliRun r = cli({"check", kQ4_0, "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "3 passed, 0 failed")) << r.out;
}

// A reference function gets a Q4_0 input as the values its blocks hold: q4_0_ref.c fails (returns
// 2) unless src0 has 32 values per block, and its double sums match the kernel's.
TEST(TypedBuffers, AReferenceFunctionSeesBlocksAsTheirValues) {
  const std::string file = std::string(METALSIM_BLOCK_CASES_DIR) + "/q4_0_function_ref.json";
  const CliRun check = cli({"check", file, "--workers", "2"});
  EXPECT_EQ(check.code, kExitOk) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "3 passed, 0 failed")) << check.out;
  const CliRun fuzz = cli({"fuzz", file, "--cases", "6", "--seed", "9", "--workers", "2"});
  EXPECT_EQ(fuzz.code, kExitOk) << fuzz.out << fuzz.err;
}

TEST(TypedBuffers, FuzzingFindsNoFailure) {
  const CliRun r = cli({"fuzz", kQ4_0, "--cases", "6", "--seed", "5", "--workers", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "6 passed, 0 failed")) << r.out;
}

// matmul's arguments are `device const float *`: 8-byte elements do not tile them.
TEST(TypedBuffers, ABufferThatDoesNotTileATypedPointerIsStillRefused) {
  const CliRun r = cli({"run", edited(kMatmul, [](json& j) { j["buffers"][0]["type"] = "long"; })});
  EXPECT_EQ(r.code, kExitUsage) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "buffers[0].type: long (8 bytes) does not tile argument")) << r.err;
}

TEST(TypedBuffers, BlockFillErrorsNameTheField) {
  auto error_of = [](const std::function<void(json&)>& edit) {
    const CliRun r = cli({"run", edited(kQ4_0, edit)});
    EXPECT_EQ(r.code, kExitUsage) << r.out << r.err;
    return r.err;
  };
  EXPECT_TRUE(contains(error_of([](json& j) { j["buffers"][0]["fill"]["blocks"] = "q3_0"; }),
                       "buffers[0].fill.blocks: unknown block format \"q3_0\" (q4_0, q8_0, "
                       "q4_K, q5_K)"));
  EXPECT_TRUE(contains(error_of([](json& j) { j["buffers"][0]["type"] = "float"; }),
                       "buffers[0].type: a blocks fill needs a char or uchar buffer"));
  // The count is an expression: a case whose count is not whole blocks fails, naming the field.
  const CliRun r =
      cli({"run", edited(kQ4_0, [](json& j) { j["buffers"][0]["count"] = "18 * nb * ne01 + 1"; })});
  EXPECT_EQ(r.code, kExitFailed) << r.out << r.err;
  EXPECT_TRUE(contains(r.out,
                       "buffers[0].count: 2665 bytes are not whole q4_0 blocks (18 bytes "
                       "each)"))
      << r.out;
}

// Every block the fill writes decodes (kernels/formats' dequantization) to finite values within
// the scales' range, and the seed fixes the bytes.
template <class Block>
void expect_finite_blocks(const char* format, double largest_value) {
  const BlockLayout* layout = find_block_layout(format);
  ASSERT_NE(layout, nullptr) << format;
  ASSERT_EQ(layout->bytes, sizeof(Block)) << format;
  constexpr size_t kBlocks = 64;
  std::vector<Block> blocks(kBlocks), again(kBlocks);
  spec::InputGenerator gen(11), same(11);
  fill_blocks(*layout, reinterpret_cast<unsigned char*>(blocks.data()), sizeof(Block) * kBlocks,
              gen);
  fill_blocks(*layout, reinterpret_cast<unsigned char*>(again.data()), sizeof(Block) * kBlocks,
              same);
  EXPECT_EQ(std::memcmp(blocks.data(), again.data(), sizeof(Block) * kBlocks), 0) << format;
  const int64_t per_block = sizeof(Block) == 18 || sizeof(Block) == 34 ? 32 : 256;
  std::vector<double> values(size_t(per_block * kBlocks));
  formats::dequantize(blocks.data(), per_block * int64_t(kBlocks), values.data());
  double largest = 0;
  for (double v : values) {
    ASSERT_TRUE(std::isfinite(v)) << format;
    largest = std::max(largest, std::abs(v));
  }
  EXPECT_LE(largest, largest_value) << format;
  EXPECT_GT(largest, 0) << format;
}

TEST(BlockFill, EveryBlockDecodesToFiniteValuesAndTheSeedFixesTheBytes) {
  // |d| < 1/8: Q4_0 |q - 8| <= 8, Q8_0 |q| <= 128; K-quants d * 63 * 31 + dmin * 63.
  expect_finite_blocks<formats::BlockQ4_0>("q4_0", 1);
  expect_finite_blocks<formats::BlockQ8_0>("q8_0", 16);
  expect_finite_blocks<formats::BlockQ4_K>("q4_K", 0.125 * 63 * 15 + 0.125 * 63);
  expect_finite_blocks<formats::BlockQ5_K>("q5_K", 0.125 * 63 * 31 + 0.125 * 63);
}

}  // namespace
}  // namespace metalsim::cli::testing
