// Evaluation of an expression's tree (expression_node.h) with C's integer and float rules, and
// every error of evaluation (division by zero, overflow, non-finite results, endless loops)
// named, never undefined.
#include <cmath>
#include <limits>

#include "host/cli/expression_node.h"

namespace metalsim::cli::expression_detail {
namespace {

using Node = Expression::Node;

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

Value evaluate(const Node& root, const std::string& text, const Scope& scope) {
  return Evaluator(text, scope).eval(root);
}

}  // namespace metalsim::cli::expression_detail
