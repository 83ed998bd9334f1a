#pragma once
// Expressions over a case's parameters, as a case file writes buffer sizes, grids, constraints,
// bytes and function constants: "ceil_div(N, 16)", "M * K", "N % 64 != 0 || K > 1",
// "1.0 / sqrt(float(D))", "causal ? 1 : 0", and small host loops:
//   "let nth = 32; while (nth < ne00 && nth * nrows < 256) nth *= 2; nth"
//
// Grammar, loosest first (C's precedence and meaning):
//   program:   statement* expr
//   statement: let NAME = expr ;  |  NAME (= += -= *= /=) expr ;  |  while (expr) body
//   body:      an assignment  |  { assignment* }
//   expr:      c ? expr : expr ; || ; && ; == != ; < <= > >= ; << >> ; + - ; * / % ;
//              unary - ! ; atoms
//   atom:      literal (42, 0.5, 1e-3) | name | ( expr ) | function(args)
//   functions: min max (integers stay integers), ceil_div next_pow2 (integers), sqrt exp2 log2
//              pow floor ceil float (give floats), int (truncates toward zero, as C's cast)
// Values are 64-bit integers or doubles, as in C: an operation on two integers is an integer
// operation, one with a float operand is a float operation. Comparisons and logic give 0 or 1.
// Division by zero, integer overflow, a float result that is not finite, and a `while` that runs
// more than kMaxLoopIterations times are errors of the evaluation, not undefined behaviour.
// Parsed by expression_parser.cpp, evaluated by expression_eval.cpp (expression_node.h: the tree).
#include <cstdint>
#include <functional>
#include <map>
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

// An integer or a float, as C keeps them apart.
struct Value {
  bool is_float = false;
  int64_t integer = 0;
  double number = 0;

  static Value of(int64_t v) { return {false, v, double(v)}; }
  static Value of_float(double v) { return {true, 0, v}; }
  double as_double() const { return is_float ? number : double(integer); }
  bool truthy() const { return is_float ? number != 0 : integer != 0; }
  std::string str() const;
};

// The names an expression may read: a case's parameters and `let` bindings.
using Scope = std::map<std::string, Value, std::less<>>;
Scope scope_of(const spec::Params& params);

inline constexpr int64_t kMaxLoopIterations = 1'000'000;

class Expression {
 public:
  Expression();  // the constant 0
  // Throws ExpressionError on malformed text.
  static Expression parse(const std::string& text);
  static Expression constant(int64_t value);
  static Expression constant_float(double value);

  // Throws ExpressionError on a name missing from the scope, or an evaluation error.
  Value value(const Scope& scope) const;
  // An integer result; a float one is an error (the case file converts with int(...)).
  int64_t integer(const Scope& scope) const;
  int64_t evaluate(const spec::Params& params) const { return integer(scope_of(params)); }
  // The names the expression reads from its scope (not those its own `let`s bind).
  const std::vector<std::string>& names() const { return names_; }
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;  // immutable, shared by copies
  std::vector<std::string> names_;
};

}  // namespace metalsim::cli
