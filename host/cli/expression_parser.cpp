// The expression grammar of expression.h, parsed by recursive descent into the tree of
// expression_node.h.
#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "host/cli/expression_node.h"

namespace metalsim::cli::expression_detail {
namespace {

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

}  // namespace

Parsed parse(const std::string& text) {
  Parser parser(text);
  NodePtr root = parser.parse_all();
  return {root, parser.free_names()};
}

}  // namespace metalsim::cli::expression_detail
