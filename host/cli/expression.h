#pragma once
// Integer expressions over a case's parameters, as a case file writes buffer sizes, grids and
// constraints: "ceil_div(N, 16)", "M * K", "min(tg, 32) * 4", "N % 64 != 0 || K > 1".
//
// Grammar, loosest first (C's precedence and meaning, on int64_t):
//   || ; && ; == != ; < <= > >= ; + - ; * / % ; unary - ! ; atoms
//   atom: integer literal | parameter name | ( expr ) | min(a, b) | max(a, b) | ceil_div(a, b)
// Comparisons and logic give 0 or 1. Division and remainder by zero, and ceil_div by a
// non-positive divisor, are errors of the evaluation, not undefined behaviour.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/spec/spec.h"

namespace metalsim::cli {

// A parse or evaluation error; what() names the expression, the position and what was wrong.
class ExpressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Expression {
 public:
  Expression();  // the constant 0
  // Throws ExpressionError on malformed text.
  static Expression parse(const std::string& text);
  static Expression constant(int64_t value);

  // Throws ExpressionError on a parameter missing from `params`, or a division by zero.
  int64_t evaluate(const spec::Params& params) const;
  // The parameter names the expression reads.
  std::vector<std::string> names() const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;  // immutable, shared by copies
};

}  // namespace metalsim::cli
