#include <gtest/gtest.h>

#include "simt/front/diagnostics.h"
#include "simt/front/lexer.h"

namespace metalsim::front {
namespace {

TEST(FrontLexer, TokensCarryLinesAndDropComments) {
  Tokens t = lex("int a; // c\n/* x\n y */ float b = 1.5h;\n", 0);
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(t[0].text, "int");
  EXPECT_EQ(t[0].line, 1);
  EXPECT_EQ(t[3].text, "float");
  EXPECT_EQ(t[3].line, 3);
  EXPECT_TRUE(t[3].space_before);
  EXPECT_EQ(t[6].text, "1.5h");
  EXPECT_EQ(t[6].kind, TokKind::Number);
}

TEST(FrontLexer, DirectiveIsOneTokenWithContinuations) {
  Tokens t = lex("#define X(a) \\\n  a + 1\nint y;\n", 0);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].kind, TokKind::Directive);
  EXPECT_EQ(t[0].text, "#define X(a) \\\n  a + 1");
  EXPECT_EQ(t[1].line, 3);
}

TEST(FrontLexer, NumbersWithExponentsAndPunctuation) {
  Tokens t = lex("x=1e-3h+.5h;a->b::c...<<=", 0);
  std::vector<std::string> want{"x", "=", "1e-3h", "+", ".5h", ";", "a", "->", "b", "::", "c", "...", "<<="};
  ASSERT_EQ(t.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(t[i].text, want[i]) << i;
}

TEST(FrontLexer, UnterminatedCommentIsAnErrorAtItsLine) {
  try {
    lex("int a;\n/* open\n", 0);
    FAIL();
  } catch (const FrontError& e) {
    EXPECT_EQ(e.line, 2);
  }
}

}  // namespace
}  // namespace metalsim::front
