// Every emitted token sits on the line the compiler believes is its .metal line.
#include <sstream>

#include "front_test_util.h"

namespace metalsim::front {
namespace {

using testing::translate;

// Replays the #line directives of `code`: the .metal line of the first line containing `needle`.
int metal_line_of(const std::string& code, const std::string& needle) {
  std::istringstream in(code);
  std::string line;
  int current = 0;
  while (std::getline(in, line)) {
    if (line.rfind("#line ", 0) == 0) {
      current = std::stoi(line.substr(6));
      continue;
    }
    if (line.find(needle) != std::string::npos) return current;
    ++current;
  }
  return -1;
}

TEST(FrontLineMapping, BodyLinesMapToMetalLines) {
  const char* src =
      "#include <metal_stdlib>\n"                              // 1
      "using namespace metal;\n"                               // 2
      "constant bool fc [[function_constant(0)]];\n"           // 3
      "kernel void k(device float* x [[buffer(0)]],\n"         // 4
      "              uint i [[thread_position_in_grid]]) {\n"  // 5
      "  threadgroup float buf[4];\n"                          // 6
      "  /* a comment\n"                                       // 7
      "     over lines */\n"                                   // 8
      "  x[i] = 1.0h;\n"                                       // 9
      "\n\n\n\n\n\n\n\n\n\n\n\n"                               // 10-21
      "  x[i] += buf[0];\n"                                    // 22
      "}\n"                                                    // 23
      "void after(device int* p) { p[0] = 0; }\n";             // 24
  auto r = translate(src);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(metal_line_of(r.code, "using namespace metal"), 2);
  EXPECT_EQ(metal_line_of(r.code, "FunctionConstant<bool> fc"), 3);
  EXPECT_EQ(metal_line_of(r.code, "void k("), 4);
  EXPECT_EQ(metal_line_of(r.code, "uint i"), 5);
  EXPECT_EQ(metal_line_of(r.code, "ms_tg_site_buf{"), 6);
  EXPECT_EQ(metal_line_of(r.code, "x[i] = half(1.0)"), 9);
  EXPECT_EQ(metal_line_of(r.code, "x[i] += buf[0]"), 22);
  EXPECT_EQ(metal_line_of(r.code, "struct ms_kernel_k"), 4);
  EXPECT_EQ(metal_line_of(r.code, "void after("), 24);
}

TEST(FrontLineMapping, MultiLineDefineKeepsLineCount) {
  auto r = translate("#define F(x) \\\n  (device float*)x\nint a;\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(metal_line_of(r.code, "int a;"), 3);
}

// Replays the #line directives of `code`: the file of the first line containing `needle`.
std::string metal_file_of(const std::string& code, const std::string& needle) {
  std::istringstream in(code);
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.rfind("#line ", 0) == 0) {
      size_t quote = line.find('"');
      if (quote != std::string::npos) current = line.substr(quote + 1, line.rfind('"') - quote - 1);
      continue;
    }
    if (line.find(needle) != std::string::npos) return current;
  }
  return "";
}

// Generated MSL (the Python package's metal_kernel) maps a user's body with #line: what follows
// the directive is numbered as the directive says, in the file it names, and a directive without
// a name renumbers the current file.
TEST(FrontLineMapping, LineDirectivesOfTheInputRenumberWhatFollows) {
  const char* src =
      "#include <metal_stdlib>\n"                              // 1
      "kernel void k(device float* x [[buffer(0)]],\n"         // 2
      "              uint i [[thread_position_in_grid]]) {\n"  // 3
      "#line 1 \"body.metal\"\n"                               // 4
      "\n"                                                     // body 1
      "  x[i] = 2.0f;\n"                                       // body 2
      "#line 40\n"                                             // body 3
      "  x[i] += 1.0f;\n"                                      // body 40
      "}\n";                                                   // body 41
  auto r = translate(src);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(metal_file_of(r.code, "void k("), "t.metal");
  EXPECT_EQ(metal_line_of(r.code, "void k("), 2);
  EXPECT_EQ(metal_file_of(r.code, "x[i] = 2.0f"), "body.metal");
  EXPECT_EQ(metal_line_of(r.code, "x[i] = 2.0f"), 2);
  EXPECT_EQ(metal_line_of(r.code, "x[i] += 1.0f"), 40);
  EXPECT_EQ(r.code.find("#line 1 \"body.metal\"\n\n"), std::string::npos);
}

// A front error past the directive names the mapped line.
TEST(FrontLineMapping, FrontErrorsNameTheMappedLine) {
  auto r = translate("int a;\n#line 7 \"body.metal\"\n#define K kernel void k() {}\nK\n");
  EXPECT_NE(r.error.find("body.metal:7"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace metalsim::front
