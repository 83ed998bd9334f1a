#include "host/cli/expression.h"

#include <cstdio>

#include "host/cli/expression_node.h"

namespace metalsim::cli {

std::string Value::str() const {
  if (!is_float) return std::to_string(integer);
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", number);
  return text;
}

Scope scope_of(const spec::Params& params) {
  Scope s;
  for (const auto& [name, v] : params) s[name] = Value::of(v);
  return s;
}

Expression::Expression() : text_("0"), root_(std::make_shared<Node>()) {}

Expression Expression::parse(const std::string& text) {
  Expression e;
  e.text_ = text;
  expression_detail::Parsed parsed = expression_detail::parse(text);
  e.root_ = std::move(parsed.root);
  e.names_ = std::move(parsed.free_names);
  return e;
}

Expression Expression::constant(int64_t value) {
  Expression e;
  e.text_ = std::to_string(value);
  auto n = std::make_shared<Node>();
  n->value = Value::of(value);
  e.root_ = std::move(n);
  return e;
}

Expression Expression::constant_float(double value) {
  Expression e;
  e.text_ = Value::of_float(value).str();
  auto n = std::make_shared<Node>();
  n->value = Value::of_float(value);
  e.root_ = std::move(n);
  return e;
}

Value Expression::value(const Scope& scope) const {
  return expression_detail::evaluate(*root_, text_, scope);
}

int64_t Expression::integer(const Scope& scope) const {
  const Value v = value(scope);
  if (v.is_float)
    throw ExpressionError("expression '" + text_ + "' gives " + v.str() +
                          ", a float, where an integer is needed (convert with int(...))");
  return v.integer;
}

}  // namespace metalsim::cli
