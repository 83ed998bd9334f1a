// The front's include lookup: "header" beside the including file, then in the include
// directories; <header> in the include directories only (a case file's include_dirs, `metalsim
// run -I`, CompileOptions::setIncludeDirectories), never MSL's own <metal_*> headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <stdlib.h>  // mkdtemp

#include "simt/front/front.h"

namespace metalsim::front::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class FrontIncludes : public ::testing::Test {
 protected:
  // A folder of its own: test processes of several build trees run at once on one machine.
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "metalsim_front_include_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    root_ = dir_ / "root";
    fs::create_directories(root_ / "lib");
    std::ofstream(root_ / "lib" / "twice.h")
        << "inline float twice_it(float x) { return 2.0f * x; }\n";
    // A folder a user names may hold a file of a standard header's name: it is not MSL's.
    std::ofstream(root_ / "metal_stdlib") << "#error not metalsim's metal_stdlib\n";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
  fs::path root_;
  const std::string source_ =
      "#include <metal_stdlib>\n#include <lib/twice.h>\nusing namespace metal;\n"
      "kernel void k(device float* y [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n"
      "  y[i] = twice_it(1.0f);\n}\n";
};

TEST_F(FrontIncludes, AngleIncludesFoundInIncludeDirectoriesAreInlined) {
  Front front({root_.string()});
  const std::string code = front.translate_source(source_, (dir_ / "k.metal").string());
  EXPECT_TRUE(contains(code, "twice_it(float x)")) << code;
  EXPECT_FALSE(contains(code, "#include <lib/twice.h>")) << code;
  EXPECT_TRUE(contains(code, "#include <metal_stdlib>")) << code;
  const std::vector<std::string>& files = front.files();
  EXPECT_NE(std::find(files.begin(), files.end(), (root_ / "lib" / "twice.h").string()),
            files.end());
}

TEST_F(FrontIncludes, WithoutIncludeDirectoriesAngleIncludesStay) {
  Front front;
  const std::string code = front.translate_source(source_, (dir_ / "k.metal").string());
  EXPECT_TRUE(contains(code, "#include <lib/twice.h>")) << code;
  EXPECT_FALSE(contains(code, "twice_it(float x)")) << code;
}

}  // namespace
}  // namespace metalsim::front::testing
