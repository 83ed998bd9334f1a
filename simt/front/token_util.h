#pragma once
// Helpers shared by the rewrite rules: bracket matching, attribute spans, statement bounds and
// the brace-scope map (namespace, class, function body, initializer) of a token list.
#include <string>
#include <vector>

#include "simt/front/lexer.h"

namespace metalsim::front {

// Index of the bracket closing the one at `open` ('(', '[', '{' or '<' of a template argument
// list); throws FrontError when unbalanced. For '<', '>>' counts as two closers.
size_t match_close(const Tokens& t, size_t open);

// `[[` starts an attribute at `i`; attribute_end returns the index just past its `]]`.
bool is_attribute_start(const Tokens& t, size_t i);
size_t attribute_end(const Tokens& t, size_t i);

// The attributes inside [[ ... ]] at `i`: each as its name and its argument text (or "").
struct Attribute {
  std::string name;
  std::string args;  // text between the parentheses, tokens joined
  bool has_args = false;
  int line = 0;
};
std::vector<Attribute> parse_attributes(const Tokens& t, size_t i);

// Tokens [b, e) as text, single spaces where the source had any.
std::string join(const Tokens& t, size_t b, size_t e);

enum class Scope { Namespace, Class, Function, Initializer };

// scope[i]: the kind of the innermost brace around token i (Namespace at file scope). Tokens
// nested in a function body, including blocks and lambdas there, are Function.
// When `opened` is given, (*opened)[i] is the kind of scope the '{' at i opens.
std::vector<Scope> scope_map(const Tokens& t, std::vector<Scope>* opened = nullptr);

// Index of the first token of the statement or declaration containing `i` at its brace level
// (just past the previous ';', '{', '}' or directive at the same depth).
size_t statement_start(const Tokens& t, size_t i);

// The index of the ';' ending the statement starting at `i` (depth 0), or t.size().
size_t statement_end(const Tokens& t, size_t i);

bool is_address_space(const Token& tok);  // device, constant, thread, threadgroup

// Whether the address space `constant` at `i` becomes `const` once address spaces are erased
// (the address-space rule and the overload rule agree through this). Not when its declaration
// already says const (`constant const T*`), and not when it qualifies a constructor's `this`
// (`S(T x) constant : ...`, MLX's complex64_t and bfloat emulation): a constructor cannot be
// const. A constructor is `X(...)` where `struct X` or `class X` appears in the file.
bool constant_becomes_const(const Tokens& t, size_t i);

// The parameter list between the parentheses at `open` and `close`, as C++ once attributes and
// address spaces are gone (`const constant P* p [[buffer(2)]], uint3 gid [[...]]` ->
// `const P* p, uint3 gid`): for generated code, which later rules do not rewrite.
std::string erased_parameter_list(const Tokens& t, size_t open, size_t close);

}  // namespace metalsim::front
