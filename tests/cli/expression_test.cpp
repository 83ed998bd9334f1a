// The case files' expression evaluator (host/cli/expression.h): C's integer and float
// arithmetic, the conditional, functions, `let` and bounded `while`, and errors that say where.
#include <gtest/gtest.h>

#include <cmath>

#include "host/cli/expression.h"

namespace metalsim::cli::testing {
namespace {

Value value_of(const std::string& text, const spec::Params& p = {}) {
  return Expression::parse(text).value(scope_of(p));
}

std::string error_of(const std::string& text, const spec::Params& p = {}) {
  try {
    value_of(text, p);
  } catch (const ExpressionError& e) {
    return e.what();
  }
  return "no error";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ExpressionValues, IntegersStayIntegersAsInC) {
  EXPECT_EQ(value_of("7 / 2").integer, 3);
  EXPECT_FALSE(value_of("7 / 2").is_float);
  EXPECT_EQ(value_of("-7 / 2").integer, -3);  // truncation toward zero
  EXPECT_EQ(value_of("-7 % 3").integer, -1);
  EXPECT_EQ(value_of("1 << 10 >> 2").integer, 256);
  EXPECT_EQ(value_of("1 << 3 + 1").integer, 16);  // + binds tighter than <<, as in C
  EXPECT_EQ(value_of("next_pow2(1)").integer, 1);
  EXPECT_EQ(value_of("next_pow2(33)").integer, 64);
  EXPECT_EQ(value_of("next_pow2(64)").integer, 64);
  EXPECT_EQ(value_of("min(3, -4)").integer, -4);
}

TEST(ExpressionValues, AFloatOperandMakesAFloatOperation) {
  EXPECT_TRUE(value_of("7 / 2.0").is_float);
  EXPECT_DOUBLE_EQ(value_of("7 / 2.0").number, 3.5);
  EXPECT_DOUBLE_EQ(value_of("1.0 / sqrt(float(D))", {{"D", 64}}).number, 0.125);
  EXPECT_DOUBLE_EQ(value_of("exp2(-3)").number, 0.125);
  EXPECT_DOUBLE_EQ(value_of("log2(1024)").number, 10);
  EXPECT_DOUBLE_EQ(value_of("pow(2.0, -8.0 / 4)").number, 0.25);
  EXPECT_DOUBLE_EQ(value_of("1e-3 * 2.5E+2").number, 0.25);
  EXPECT_DOUBLE_EQ(value_of("max(2, 2.5)").number, 2.5);
  EXPECT_TRUE(value_of("max(2, 2.5)").is_float);
  EXPECT_EQ(value_of("int(7.9)").integer, 7);
  EXPECT_EQ(value_of("int(-7.9)").integer, -7);
  EXPECT_DOUBLE_EQ(value_of("floor(-0.5)").number, -1);
  EXPECT_DOUBLE_EQ(value_of("ceil(0.25)").number, 1);
  EXPECT_EQ(value_of("0.5 < 1").integer, 1);
}

TEST(ExpressionValues, ConditionalAndLogicShortCircuit) {
  EXPECT_EQ(value_of("n > 4 ? n : 4", {{"n", 9}}).integer, 9);
  EXPECT_EQ(value_of("n > 4 ? n : 4", {{"n", 1}}).integer, 4);
  EXPECT_EQ(value_of("a ? 1 : b ? 2 : 3", {{"a", 0}, {"b", 1}}).integer, 2);
  // The branch not taken is not evaluated: no division by zero.
  EXPECT_EQ(value_of("d != 0 ? 10 / d : 0", {{"d", 0}}).integer, 0);
  EXPECT_EQ(value_of("d != 0 && 10 / d > 1", {{"d", 0}}).integer, 0);
}

// ggml's `int nth = 32; while (nth < ne00 && nth * nrows < 256) nth *= 2;` as a bounded loop,
// against the closed form min(max(32, next_pow2(ne00)), max(32, next_pow2(ceil_div(256, nrows))))
// and against the same loop in C++, over every ne00 and nrows that ggml's softmax meets here.
TEST(ExpressionValues, GgmlsThreadgroupLoopMatchesItsClosedFormAndCpp) {
  const Expression loop =
      Expression::parse("let nth = 32; while (nth < ne00 && nth * nrows < 256) nth *= 2; nth");
  const Expression closed =
      Expression::parse("min(max(32, next_pow2(ne00)), max(32, next_pow2(ceil_div(256, nrows))))");
  EXPECT_EQ(loop.names(), (std::vector<std::string>{"ne00", "nrows"}));
  for (int64_t ne00 = 1; ne00 <= 1100; ne00 += 7)
    for (int64_t nrows : {1, 2, 3, 7, 8, 9, 100, 255, 256, 257}) {
      int64_t nth = 32;
      while (nth < ne00 && nth * nrows < 256) nth *= 2;
      const spec::Params p = {{"ne00", ne00}, {"nrows", nrows}};
      ASSERT_EQ(loop.evaluate(p), nth) << "ne00=" << ne00 << " nrows=" << nrows;
      ASSERT_EQ(closed.evaluate(p), nth) << "ne00=" << ne00 << " nrows=" << nrows;
    }
}

TEST(ExpressionValues, LetsAssignmentsAndBlocks) {
  EXPECT_EQ(value_of("let k = 0; let s = 0; while (k < 5) { s += k * k; k += 1; } s").integer, 30);
  EXPECT_DOUBLE_EQ(value_of("let x = 1.0; x /= 4; x -= 0.5; x").number, -0.25);
  EXPECT_EQ(value_of("let a = n; a = a * 3; a", {{"n", 5}}).integer, 15);
  // What the expression binds itself is not among the names it needs from the case.
  EXPECT_EQ(Expression::parse("let k = 2; k * n").names(), (std::vector<std::string>{"n"}));
}

// ggml's ALiBi slope bases, computed as its host code computes them in float.
TEST(ExpressionValues, AlibiBasesAsGgmlsHostComputesThem) {
  const spec::Params p = {{"n_head", 12}};
  EXPECT_EQ(value_of("1 << int(floor(log2(float(n_head))))", p).integer, 8);
  EXPECT_DOUBLE_EQ(value_of("pow(2.0, -8.0 / (1 << int(floor(log2(float(n_head))))))", p).number,
                   std::pow(2.0, -1.0));
}

TEST(ExpressionErrors, SayWhereAndWhat) {
  EXPECT_TRUE(contains(error_of("M * "), "column 5")) << error_of("M * ");
  EXPECT_TRUE(contains(error_of("floor(M, 2)"), "expected ')'")) << error_of("floor(M, 2)");
  EXPECT_TRUE(contains(error_of("cbrt(8)"), "unknown function 'cbrt'"));
  EXPECT_TRUE(contains(error_of("n / 0.0", {{"n", 1}}), "division by zero"));
  EXPECT_TRUE(contains(error_of("sqrt(-1.0)"), "sqrt(-1) is not a number"));
  EXPECT_TRUE(contains(error_of("log2(0)"), "log2(0) is infinite"));
  EXPECT_TRUE(contains(error_of("5 % 2.0"), "'%' needs integers"));
  EXPECT_TRUE(contains(error_of("ceil_div(5, 2.0)"), "ceil_div needs integers, not 2"));
  EXPECT_TRUE(contains(error_of("4611686018427387904 * 2"), "overflows 64-bit integers"));
  EXPECT_TRUE(contains(error_of("1 << 63"), "shift by 63"));
  EXPECT_TRUE(contains(error_of("x = 3; x"), "assigns 'x', which no let in the expression binds"));
  EXPECT_TRUE(contains(error_of("let a = 1; let a = 2; a"), "'a' is bound twice"));
  EXPECT_TRUE(contains(error_of("let a = 1; while (a > 0) a *= 2; a"), "overflows"));
  EXPECT_TRUE(contains(error_of("let a = 1; while (a > 0) a = 1; a"),
                       "the while loop at column 12 ran 1000000 times without ending"));
  EXPECT_TRUE(contains(error_of("let a = 1; while (a) b = 2; a"), "assigns 'b'"));
  // An integer is needed where the case file sizes something.
  try {
    Expression::parse("n * 1.5").evaluate({{"n", 2}});
    ADD_FAILURE() << "no error";
  } catch (const ExpressionError& e) {
    EXPECT_TRUE(contains(e.what(), "gives 3, a float, where an integer is needed")) << e.what();
  }
}

}  // namespace
}  // namespace metalsim::cli::testing
