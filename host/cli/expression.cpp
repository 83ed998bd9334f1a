#include "host/cli/expression.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>

namespace metalsim::cli {

struct Expression::Node {
  enum class Kind { literal, name, unary, binary, call } kind = Kind::literal;
  int64_t value = 0;
  std::string name;  // parameter, operator or function
  std::vector<std::shared_ptr<const Node>> operands;
};

namespace {

using NodePtr = std::shared_ptr<const Expression::Node>;
using Node = Expression::Node;

// Binary operators by precedence level, loosest first.
const std::vector<std::vector<std::string>> kLevels = {
    {"||"}, {"&&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}};

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr parse_all() {
    NodePtr n = parse_level(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ExpressionError("expression '" + text_ + "' at column " + std::to_string(pos_ + 1) +
                          ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(const std::string& token) {
    skip_space();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    // Callers try "<=" before "<": a longer operator first.
    pos_ += token.size();
    return true;
  }
  void expect(const std::string& token) {
    if (!take(token)) fail("expected '" + token + "'");
  }

  NodePtr parse_level(size_t level) {
    if (level == kLevels.size()) return parse_unary();
    NodePtr left = parse_level(level + 1);
    for (;;) {
      std::string op;
      for (const std::string& candidate : kLevels[level])
        if (take(candidate)) {
          op = candidate;
          break;
        }
      if (op.empty()) return left;
      auto n = std::make_shared<Node>();
      n->kind = Node::Kind::binary;
      n->name = op;
      n->operands = {left, parse_level(level + 1)};
      left = n;
    }
  }

  NodePtr parse_unary() {
    for (const char* op : {"-", "!"})
      if (take(op)) {
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::unary;
        n->name = op;
        n->operands = {parse_unary()};
        return n;
      }
    return parse_atom();
  }

  NodePtr parse_atom() {
    skip_space();
    if (take("(")) {
      NodePtr inner = parse_level(0);
      expect(")");
      return inner;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      return parse_literal();
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      return parse_name_or_call();
    fail(pos_ < text_.size() ? "unexpected '" + text_.substr(pos_, 1) + "'"
                             : "the expression ends too early");
  }

  NodePtr parse_literal() {
    auto n = std::make_shared<Node>();
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const int digit = text_[pos_] - '0';
      if (n->value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        pos_ = start;
        fail("the number is too large");
      }
      n->value = n->value * 10 + digit;
      ++pos_;
    }
    return n;
  }

  NodePtr parse_name_or_call() {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    auto n = std::make_shared<Node>();
    n->name = text_.substr(start, pos_ - start);
    if (!take("(")) {
      n->kind = Node::Kind::name;
      return n;
    }
    if (n->name != "min" && n->name != "max" && n->name != "ceil_div") {
      pos_ = start;
      fail("unknown function '" + n->name + "' (min, max and ceil_div exist)");
    }
    n->kind = Node::Kind::call;
    n->operands.push_back(parse_level(0));
    expect(",");
    n->operands.push_back(parse_level(0));
    expect(")");
    return n;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

int64_t apply_binary(const std::string& op, int64_t a, int64_t b, const std::string& text) {
  auto zero = [&](const char* what) {
    throw ExpressionError("expression '" + text + "': " + what + " by zero");
  };
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  if (op == "/") return b == 0 ? (zero("division"), 0) : a / b;
  if (op == "%") return b == 0 ? (zero("remainder"), 0) : a % b;
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  if (op == "&&") return a && b;
  return a || b;  // "||"
}

int64_t apply_call(const std::string& fn, int64_t a, int64_t b, const std::string& text) {
  if (fn == "min") return std::min(a, b);
  if (fn == "max") return std::max(a, b);
  if (b <= 0)
    throw ExpressionError("expression '" + text + "': ceil_div by " + std::to_string(b) +
                          " (the divisor must be positive)");
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

int64_t eval(const Node& n, const spec::Params& params, const std::string& text) {
  switch (n.kind) {
    case Node::Kind::literal: return n.value;
    case Node::Kind::name: {
      const auto it = params.find(n.name);
      if (it == params.end())
        throw ExpressionError("expression '" + text + "': no parameter named '" + n.name + "'");
      return it->second;
    }
    case Node::Kind::unary: {
      const int64_t v = eval(*n.operands[0], params, text);
      return n.name == "-" ? -v : !v;
    }
    case Node::Kind::binary: {
      const int64_t a = eval(*n.operands[0], params, text);
      if (n.name == "&&" && !a) return 0;  // short-circuit, as in C
      if (n.name == "||" && a) return 1;
      return apply_binary(n.name, a, eval(*n.operands[1], params, text), text);
    }
    case Node::Kind::call:
      return apply_call(n.name, eval(*n.operands[0], params, text),
                        eval(*n.operands[1], params, text), text);
  }
  return 0;
}

void collect_names(const Node& n, std::vector<std::string>& out) {
  if (n.kind == Node::Kind::name && std::find(out.begin(), out.end(), n.name) == out.end())
    out.push_back(n.name);
  for (const auto& child : n.operands) collect_names(*child, out);
}

}  // namespace

Expression::Expression() : text_("0"), root_(std::make_shared<Node>()) {}

Expression Expression::parse(const std::string& text) {
  Expression e;
  e.text_ = text;
  e.root_ = Parser(text).parse_all();
  return e;
}

Expression Expression::constant(int64_t value) {
  Expression e;
  e.text_ = std::to_string(value);
  auto n = std::make_shared<Node>();
  n->value = value;
  e.root_ = std::move(n);
  return e;
}

int64_t Expression::evaluate(const spec::Params& params) const {
  return eval(*root_, params, text_);
}

std::vector<std::string> Expression::names() const {
  std::vector<std::string> out;
  collect_names(*root_, out);
  return out;
}

}  // namespace metalsim::cli
