// ------------------------------ overloads on address space
// MSL may overload on address space alone (`void f(device T* p)` and `void f(threadgroup T* p)`,
// as MLX does). Once address spaces are erased both are `void f(T* p)`: a redefinition. The rule:
// definitions in the same scope whose headers are equal after erasure and whose bodies are equal
// after erasure are one function, so the later ones are dropped; if the bodies differ, the front
// stops with an error at the later one (a token-level front cannot pick the overload by the
// argument's address space). Class definitions follow the same rule: MLX's
// steel/utils/type_traits.h specializes `pointer_element<thread T*>`, `<device T*>` and
// `<threadgroup T*>` with one body, which after erasure are three definitions of
// `pointer_element<T*>`. See docs/front.md.
#include <map>

#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

std::string erased_text(const Tokens& t, size_t b, size_t e, bool drop_attributes) {
  std::string s;
  for (size_t i = b; i < e; ++i) {
    if (drop_attributes && is_attribute_start(t, i)) {
      i = attribute_end(t, i) - 1;
      continue;
    }
    if (is_address_space(t[i])) {
      if (t[i].is("constant") && constant_becomes_const(t, i))
        s += "const ";  // as the address-space rule
      continue;
    }
    s += t[i].text;
    s += ' ';
  }
  return s;
}

struct Definition {
  std::string raw_header;
  std::string body;
};

}  // namespace

void rewrite_address_space_overloads(Tokens& t, RewriteContext&) {
  std::vector<Scope> opened;
  std::vector<Scope> scope = scope_map(t, &opened);
  std::vector<size_t> parents;  // open braces
  std::map<std::string, Definition> seen;
  std::vector<std::pair<size_t, size_t>> drop;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].is("}") && !parents.empty()) parents.pop_back();
    if (!t[i].is("{")) continue;
    bool definition = opened[i] == Scope::Function || opened[i] == Scope::Class;
    if (definition && scope[i] != Scope::Function) {
      size_t head = statement_start(t, i);
      size_t close = match_close(t, i);
      std::string parent = parents.empty() ? "file" : std::to_string(parents.back());
      std::string key = parent + "|" + erased_text(t, head, i, true);
      Definition d{erased_text(t, head, i, false) + join(t, head, i),
                   erased_text(t, i, close + 1, false)};
      auto [it, fresh] = seen.emplace(key, d);
      if (!fresh && it->second.raw_header != d.raw_header) {
        if (it->second.body != d.body) {
          throw FrontError(
              t[head].file, t[head].line,
              opened[i] == Scope::Class
                  ? "class specializations that differ only in address space must have identical "
                    "bodies: metalsim erases address spaces (docs/front.md)"
                  : "overloads that differ only in address space must have identical bodies: "
                    "metalsim erases address spaces (docs/front.md)");
        }
        size_t end = close + 1;
        if (opened[i] == Scope::Class && end < t.size() && t[end].is(";"))
          ++end;  // the class's ';'
        drop.emplace_back(head, end);
      }
    }
    parents.push_back(i);
  }
  if (drop.empty()) return;
  Tokens out;
  size_t d = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    while (d < drop.size() && drop[d].first < i) ++d;  // inside a class already dropped
    if (d < drop.size() && i == drop[d].first) {
      i = drop[d++].second - 1;
      continue;
    }
    out.push_back(t[i]);
  }
  t = std::move(out);
}

}  // namespace metalsim::front
