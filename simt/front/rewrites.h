#pragma once
// The rewrite rules, one file each, applied by Front::translate in this order. Each takes the
// whole token list (or a #define body when ctx.macro_body is set) and rewrites it in place.
#include <string>
#include <vector>

#include "simt/front/lexer.h"
#include "simt/front/reflection.h"

namespace metalsim::front {

struct RewriteContext {
  std::vector<std::string> files;  // the file table: [0] is the .metal file
  std::vector<FunctionConstantDecl> function_constants;
  std::vector<std::string> derived_constants;  // program-scope constants computed from them
  std::vector<KernelDecl> kernels;
  bool macro_body = false;  // rewriting a #define body: no scope map, lines are __LINE__
  int counter = 0;          // unique names for generated objects

  std::string file_name(int file) const { return files.at(static_cast<size_t>(file)); }
};

// `coherent(device)`, `coherent(system)` erased (memory here is always coherent)
void rewrite_coherence_qualifiers(Tokens& t, RewriteContext& ctx);
// `1.0h`, `1h`, `.5h` -> `half(1.0)` ...
void rewrite_literals(Tokens& t, RewriteContext& ctx);
// `{ [0 ... 3] = v, [4] = w }` -> `{ v, v, v, v, w }` (constant integer bounds only)
void rewrite_range_designators(Tokens& t, RewriteContext& ctx);
// `template [[host_name("n")]] [[kernel]] decltype(f<float>) f<float>;` -> a registered entry
void rewrite_host_name_instances(Tokens& t, RewriteContext& ctx);
// `template <> R f(Args)` inside a class -> `R f(Args)`, a non-template overload (GCC has no
// explicit specialization at class scope)
void rewrite_member_specializations(Tokens& t, RewriteContext& ctx);
// overloads that differ only by address space, with identical bodies: keep the first one
void rewrite_address_space_overloads(Tokens& t, RewriteContext& ctx);
// `constant T x [[function_constant(N)]];` -> a value read per dispatch
void rewrite_function_constants(Tokens& t, RewriteContext& ctx);
// kernel signatures -> reflection, `kernel` dropped, the entry struct after each body
void rewrite_kernels(Tokens& t, RewriteContext& ctx);
// `threadgroup T name[N];` in a function body -> storage shared by the threadgroup
void rewrite_threadgroup_variables(Tokens& t, RewriteContext& ctx);
// device/thread/threadgroup dropped, constant -> const
void rewrite_address_space(Tokens& t, RewriteContext& ctx);
// MSL attributes ([[buffer(0)]], [[kernel]], ...) dropped; standard C++ ones kept
void rewrite_attributes(Tokens& t, RewriteContext& ctx);

}  // namespace metalsim::front

namespace metalsim::front {

// One `threadgroup T a[N], b;` statement: tokens [begin, end] (end is its ';').
struct ThreadgroupDeclaration {
  size_t begin = 0;
  size_t end = 0;
  size_t type_begin = 0, type_end = 0;  // the declaration's base type
  struct Declarator {
    std::string name;
    size_t suffix_begin = 0, suffix_end = 0;  // array extents "[N][M]"
    int line = 0;
  };
  std::vector<Declarator> declarators;
};
// The threadgroup variable declarations among tokens [b, e) that start a statement.
std::vector<ThreadgroupDeclaration> find_threadgroup_declarations(const Tokens& t, size_t b,
                                                                  size_t e);

}  // namespace metalsim::front
