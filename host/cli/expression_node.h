#pragma once
// The inside of an Expression (expression.h), shared by its parser (expression_parser.cpp) and
// its evaluator (expression_eval.cpp): the syntax tree, immutable once parsed.
#include <memory>
#include <string>
#include <vector>

#include "host/cli/expression.h"

namespace metalsim::cli {

struct Expression::Node {
  enum class Kind {
    literal,
    name,
    unary,
    binary,
    conditional,
    call,
    program,  // statements, then the result (the last operand)
    let,      // let name = operands[0]
    assign,   // name op operands[0]
    loop,     // while (operands[0]) operands[1..]
  } kind = Kind::literal;
  Value value;
  std::string name;  // the name, the operator, the function or the variable
  std::string op;    // an assignment's operator
  size_t column = 0;
  std::vector<std::shared_ptr<const Node>> operands;
};

namespace expression_detail {

using NodePtr = std::shared_ptr<const Expression::Node>;

struct Parsed {
  NodePtr root;
  std::vector<std::string> free_names;  // the names it reads that its own lets do not bind
};
// Throws ExpressionError naming the column.
Parsed parse(const std::string& text);

// `root` of the expression `text` in `scope`; throws ExpressionError.
Value evaluate(const Expression::Node& root, const std::string& text, const Scope& scope);

}  // namespace expression_detail
}  // namespace metalsim::cli
