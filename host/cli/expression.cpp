#include "host/cli/expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

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

namespace {

using NodePtr = std::shared_ptr<const Expression::Node>;
using Node = Expression::Node;

// Binary operators by precedence level, loosest first (below the conditional).
const std::vector<std::vector<std::string>> kLevels = {
    {"||"},       {"&&"},     {"==", "!="},   {"<=", ">=", "<", ">"},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};

struct FunctionRow {
  const char* name;
  size_t arity;
};
constexpr FunctionRow kFunctions[] = {
    {"min", 2},  {"max", 2}, {"ceil_div", 2}, {"next_pow2", 1}, {"sqrt", 1},  {"exp2", 1},
    {"log2", 1}, {"pow", 2}, {"floor", 1},    {"ceil", 1},      {"float", 1}, {"int", 1},
};

const FunctionRow* find_function(const std::string& name) {
  for (const FunctionRow& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr parse_all() {
    auto program = std::make_shared<Node>();
    program->kind = Node::Kind::program;
    while (NodePtr s = parse_statement()) program->operands.push_back(s);
    program->operands.push_back(parse_expr());
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
    if (program->operands.size() == 1) return program->operands[0];
    return program;
  }
  std::vector<std::string> free_names() const { return free_; }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ExpressionError("expression '" + text_ + "' at column " + std::to_string(pos_ + 1) +
                          ": " + what);
  }
  // The first non-space position from `start`.
  void skip_space_from(size_t start, size_t& out) const {
    out = start;
    while (out < text_.size() && std::isspace(static_cast<unsigned char>(text_[out]))) ++out;
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  // An operator or punctuation; "<" does not match the start of "<<" or "<=", "*" not of "*=".
  bool take(const std::string& token) {
    skip_space();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    const char next = pos_ + token.size() < text_.size() ? text_[pos_ + token.size()] : '\0';
    if (token.size() == 1 && std::string("<>!+-*/%").find(token[0]) != std::string::npos &&
        next == '=')
      return false;
    if ((token == "<" || token == ">") && next == token[0]) return false;
    pos_ += token.size();
    return true;
  }
  void expect(const std::string& token) {
    if (!take(token)) fail("expected '" + token + "'");
  }
  bool take_word(const std::string& word) {
    skip_space();
    if (text_.compare(pos_, word.size(), word) != 0) return false;
    if (pos_ + word.size() < text_.size() && word_char(text_[pos_ + word.size()])) return false;
    pos_ += word.size();
    return true;
  }
  std::string read_word() {
    skip_space();
    const size_t start = pos_;
    if (pos_ < text_.size() && !std::isdigit(static_cast<unsigned char>(text_[pos_])))
      while (pos_ < text_.size() && word_char(text_[pos_])) ++pos_;
    if (pos_ == start) fail("expected a name");
    return text_.substr(start, pos_ - start);
  }

  // ------------------------------ statements

  NodePtr parse_statement() {
    const size_t start = pos_;
    if (take_word("let")) return parse_let();
    if (take_word("while")) return parse_loop(start);
    if (NodePtr a = try_assignment()) return a;
    pos_ = start;
    return nullptr;
  }

  NodePtr parse_let() {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::let;
    n->name = read_word();
    if (locals_.contains(n->name)) fail("'" + n->name + "' is bound twice");
    expect("=");
    n->operands = {parse_expr()};
    locals_.insert(n->name);
    expect(";");
    return n;
  }

  // NAME op= expr ; where NAME is a local; nullptr (nothing read) when the text is no assignment.
  NodePtr try_assignment() {
    const size_t start = pos_;
    skip_space();
    if (pos_ >= text_.size() || !word_char(text_[pos_]) ||
        std::isdigit(static_cast<unsigned char>(text_[pos_])))
      return nullptr;
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::assign;
    n->column = pos_;
    n->name = read_word();
    skip_space();
    for (const char* op : {"+=", "-=", "*=", "/=", "="})
      if (text_.compare(pos_, std::string(op).size(), op) == 0 &&
          (std::string(op) != "=" || text_.compare(pos_, 2, "==") != 0)) {
        n->op = op;
        pos_ += n->op.size();
        break;
      }
    if (n->op.empty()) {
      pos_ = start;
      return nullptr;
    }
    if (!locals_.contains(n->name)) {
      pos_ = n->column;
      fail("assigns '" + n->name + "', which no let in the expression binds");
    }
    n->operands = {parse_expr()};
    expect(";");
    return n;
  }

  NodePtr parse_loop(size_t start) {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::loop;
    skip_space_from(start, n->column);
    expect("(");
    n->operands.push_back(parse_expr());
    expect(")");
    const bool block = take("{");
    do {
      NodePtr a = try_assignment();
      if (a == nullptr) {
        if (block && take("}")) break;
        fail("expected an assignment (NAME = ..., NAME *= ...) in the loop's body");
      }
      n->operands.push_back(a);
    } while (block);
    return n;
  }

  // ------------------------------ expressions

  NodePtr parse_expr() {
    NodePtr cond = parse_level(0);
    if (!take("?")) return cond;
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::conditional;
    NodePtr yes = parse_expr();
    expect(":");
    n->operands = {cond, yes, parse_expr()};
    return n;
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
      NodePtr inner = parse_expr();
      expect(")");
      return inner;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      return parse_literal();
    if (pos_ < text_.size() && word_char(text_[pos_])) return parse_name_or_call();
    fail(pos_ < text_.size() ? "unexpected '" + text_.substr(pos_, 1) + "'"
                             : "the expression ends too early");
  }

  // Digits, with a fraction or an exponent for a float: 42, 0.5, 1e-3, 2.5E+2.
  NodePtr parse_literal() {
    const size_t start = pos_;
    auto digits = [&] {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    };
    digits();
    bool is_float = false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      const size_t exponent = pos_;
      digits();
      if (pos_ == exponent) fail("the number's exponent has no digits");
    }
    const std::string literal = text_.substr(start, pos_ - start);
    auto n = std::make_shared<Node>();
    if (is_float) {
      n->value = Value::of_float(std::stod(literal));
      return n;
    }
    int64_t v = 0;
    for (char c : literal)
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) {
        pos_ = start;
        fail("the number is too large");
      }
    n->value = Value::of(v);
    return n;
  }

  NodePtr parse_name_or_call() {
    const size_t start = pos_;
    auto n = std::make_shared<Node>();
    n->name = read_word();
    n->column = start;
    if (!take("(")) {
      n->kind = Node::Kind::name;
      if (!locals_.contains(n->name) &&
          std::find(free_.begin(), free_.end(), n->name) == free_.end())
        free_.push_back(n->name);
      return n;
    }
    const FunctionRow* f = find_function(n->name);
    if (f == nullptr) {
      pos_ = start;
      fail("unknown function '" + n->name +
           "' (min, max, ceil_div, next_pow2, sqrt, exp2, log2, pow, floor, ceil, float, int "
           "exist)");
    }
    n->kind = Node::Kind::call;
    for (size_t i = 0; i < f->arity; ++i) {
      if (i > 0) expect(",");
      n->operands.push_back(parse_expr());
    }
    expect(")");
    return n;
  }

  const std::string& text_;
  size_t pos_ = 0;
  std::set<std::string> locals_;
  std::vector<std::string> free_;
};

// ------------------------------ evaluation

class Evaluator {
 public:
  Evaluator(const std::string& text, const Scope& outer) : text_(text), outer_(outer) {}

  Value eval(const Node& n) {
    switch (n.kind) {
      case Node::Kind::literal: return n.value;
      case Node::Kind::name: return lookup(n.name);
      case Node::Kind::unary: return unary(n.name, eval(*n.operands[0]));
      case Node::Kind::binary: return binary(n);
      case Node::Kind::conditional: return eval(*n.operands[eval(*n.operands[0]).truthy() ? 1 : 2]);
      case Node::Kind::call: return call(n);
      case Node::Kind::program: return program(n);
      default: fail("a statement where a value is needed");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ExpressionError("expression '" + text_ + "': " + what);
  }

  // The expression's own `let`s first, then the case's names.
  Value lookup(const std::string& name) const {
    if (const auto it = locals_.find(name); it != locals_.end()) return it->second;
    const auto it = outer_.find(name);
    if (it == outer_.end()) fail("no parameter named '" + name + "'");
    return it->second;
  }

  Value finite(double v, const std::string& what) const {
    if (std::isnan(v)) fail(what + " is not a number");
    if (!std::isfinite(v)) fail(what + " is infinite");
    return Value::of_float(v);
  }

  int64_t need_integer(const Value& v, const std::string& what) const {
    if (v.is_float) fail(what + " needs integers, not " + v.str() + " (convert with int(...))");
    return v.integer;
  }

  Value unary(const std::string& op, const Value& v) const {
    if (op == "!") return Value::of(!v.truthy());
    if (v.is_float) return Value::of_float(-v.number);
    if (v.integer == std::numeric_limits<int64_t>::min()) fail("-" + v.str() + " overflows");
    return Value::of(-v.integer);
  }

  Value binary(const Node& n) {
    const std::string& op = n.name;
    const Value a = eval(*n.operands[0]);
    if (op == "&&" && !a.truthy()) return Value::of(0);  // short-circuit, as in C
    if (op == "||" && a.truthy()) return Value::of(1);
    const Value b = eval(*n.operands[1]);
    if (op == "&&" || op == "||") return Value::of(b.truthy());
    if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=")
      return compare(op, a, b);
    if (a.is_float || b.is_float) return float_binary(op, a.as_double(), b.as_double());
    return integer_binary(op, a.integer, b.integer);
  }

  static Value compare(const std::string& op, const Value& a, const Value& b) {
    const bool floats = a.is_float || b.is_float;
    const int order = floats ? (a.as_double() < b.as_double()) - (a.as_double() > b.as_double())
                             : (a.integer < b.integer) - (a.integer > b.integer);
    // order: 1 when a < b, -1 when a > b, 0 when equal.
    if (op == "==") return Value::of(order == 0);
    if (op == "!=") return Value::of(order != 0);
    if (op == "<") return Value::of(order == 1);
    if (op == "<=") return Value::of(order >= 0);
    if (op == ">") return Value::of(order == -1);
    return Value::of(order <= 0);  // ">="
  }

  Value float_binary(const std::string& op, double a, double b) const {
    if (op == "+") return finite(a + b, "+");
    if (op == "-") return finite(a - b, "-");
    if (op == "*") return finite(a * b, "*");
    if (op == "/") {
      if (b == 0) fail("division by zero");
      return finite(a / b, "/");
    }
    fail("'" + op + "' needs integers, not floats (convert with int(...))");
  }

  Value integer_binary(const std::string& op, int64_t a, int64_t b) const {
    int64_t r = 0;
    bool overflow = false;
    if (op == "+") overflow = __builtin_add_overflow(a, b, &r);
    else if (op == "-") overflow = __builtin_sub_overflow(a, b, &r);
    else if (op == "*") overflow = __builtin_mul_overflow(a, b, &r);
    else if (op == "/" || op == "%") {
      if (b == 0) fail(op == "/" ? "division by zero" : "remainder by zero");
      overflow = a == std::numeric_limits<int64_t>::min() && b == -1;
      if (!overflow) r = op == "/" ? a / b : a % b;
    } else {  // "<<", ">>"
      if (b < 0 || b > 62) fail("shift by " + std::to_string(b) + " (0 to 62 allowed)");
      overflow = op == "<<" && (a < 0 || (b > 0 && a > (std::numeric_limits<int64_t>::max() >> b)));
      r = op == "<<" ? a << b : a >> b;
    }
    if (overflow)
      fail(std::to_string(a) + " " + op + " " + std::to_string(b) + " overflows 64-bit integers");
    return Value::of(r);
  }

  Value call(const Node& n) {
    const std::string& fn = n.name;
    const Value a = eval(*n.operands[0]);
    const Value b = n.operands.size() > 1 ? eval(*n.operands[1]) : Value{};
    if (fn == "min" || fn == "max") {
      const bool first = (fn == "min") == (a.as_double() <= b.as_double());
      if (a.is_float || b.is_float) return Value::of_float((first ? a : b).as_double());
      return first ? a : b;
    }
    if (fn == "ceil_div") return ceil_div(need_integer(a, fn), need_integer(b, fn));
    if (fn == "next_pow2") return next_pow2(need_integer(a, fn));
    if (fn == "int") {
      if (!a.is_float) return a;
      if (!(std::fabs(a.number) < 9.2e18)) fail("int(" + a.str() + ") overflows");
      return Value::of(int64_t(a.number));
    }
    if (fn == "float") return Value::of_float(a.as_double());
    if (fn == "pow") return finite(std::pow(a.as_double(), b.as_double()), "pow");
    const double x = a.as_double();
    const std::string call_text = fn + "(" + a.str() + ")";
    if (fn == "sqrt") return finite(std::sqrt(x), call_text);
    if (fn == "exp2") return finite(std::exp2(x), call_text);
    if (fn == "log2") return finite(std::log2(x), call_text);
    if (fn == "floor") return Value::of_float(std::floor(x));
    return Value::of_float(std::ceil(x));  // "ceil"
  }

  Value ceil_div(int64_t a, int64_t b) const {
    if (b <= 0) fail("ceil_div by " + std::to_string(b) + " (the divisor must be positive)");
    return Value::of(a >= 0 ? a / b + (a % b != 0) : -((-a) / b));
  }

  // The smallest power of two at least `a` (1 for a <= 1).
  Value next_pow2(int64_t a) const {
    int64_t p = 1;
    while (p < a) {
      if (p > std::numeric_limits<int64_t>::max() / 2)
        fail("next_pow2(" + std::to_string(a) + ") overflows");
      p *= 2;
    }
    return Value::of(p);
  }

  Value program(const Node& n) {
    for (size_t i = 0; i + 1 < n.operands.size(); ++i) execute(*n.operands[i]);
    return eval(*n.operands.back());
  }

  void execute(const Node& s) {
    if (s.kind == Node::Kind::let) {
      locals_[s.name] = eval(*s.operands[0]);
    } else if (s.kind == Node::Kind::assign) {
      assign(s);
    } else {
      int64_t iterations = 0;
      while (eval(*s.operands[0]).truthy()) {
        if (++iterations > kMaxLoopIterations)
          fail("the while loop at column " + std::to_string(s.column + 1) + " ran " +
               std::to_string(kMaxLoopIterations) + " times without ending");
        for (size_t i = 1; i < s.operands.size(); ++i) assign(*s.operands[i]);
      }
    }
  }

  void assign(const Node& s) {
    const Value v = eval(*s.operands[0]);
    Value& target = locals_[s.name];
    if (s.op == "=") {
      target = v;
      return;
    }
    const std::string op = s.op.substr(0, 1);
    target = target.is_float || v.is_float ? float_binary(op, target.as_double(), v.as_double())
                                           : integer_binary(op, target.integer, v.integer);
  }

  const std::string& text_;
  const Scope& outer_;
  Scope locals_;
};

}  // namespace

Expression::Expression() : text_("0"), root_(std::make_shared<Node>()) {}

Expression Expression::parse(const std::string& text) {
  Expression e;
  e.text_ = text;
  Parser parser(text);
  e.root_ = parser.parse_all();
  e.names_ = parser.free_names();
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

Value Expression::value(const Scope& scope) const { return Evaluator(text_, scope).eval(*root_); }

int64_t Expression::integer(const Scope& scope) const {
  const Value v = value(scope);
  if (v.is_float)
    throw ExpressionError("expression '" + text_ + "' gives " + v.str() +
                          ", a float, where an integer is needed (convert with int(...))");
  return v.integer;
}

}  // namespace metalsim::cli
