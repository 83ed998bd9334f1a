#include "simt/front/reflection.h"

#include <cctype>
#include <string_view>

#include "simt/abi/builtin.h"
#include "simt/front/diagnostics.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

bool is_builtin_name(std::string_view n) {
#define METALSIM_FRONT_BUILTIN_NAME(name, comps) \
  if (n == #name) return true;
  METALSIM_BUILTINS(METALSIM_FRONT_BUILTIN_NAME)
#undef METALSIM_FRONT_BUILTIN_NAME
  return false;
}

// Attributes of kernel parameters that metalsim does not run (graphics, imageblocks, ...).
bool is_unsupported_param_attribute(std::string_view n) {
  return n == "stage_in" || n == "payload" || n == "imageblock" || n == "threadgroup_imageblock" ||
         n == "color" || n == "raster_order_group" || n == "id" || n == "amplification_count" ||
         n == "amplification_id" || n == "mesh" || n == "primitive_id" || n == "vertex_id" ||
         n == "instance_id" || n == "position";
}

// Splits [b, e) at top-level commas.
std::vector<std::pair<size_t, size_t>> split_commas(const Tokens& t, size_t b, size_t e) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = b;
  for (size_t i = b; i < e; ++i) {
    if (t[i].is("(") || t[i].is("[") || t[i].is("{")) {
      i = match_close(t, i);
    } else if (t[i].is("<") && i > b && t[i - 1].ident()) {
      i = match_close(t, i);
    } else if (t[i].is(",")) {
      out.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (start < e) out.emplace_back(start, e);
  return out;
}

std::vector<std::string> template_arg_names(const Tokens& t, size_t b, size_t e) {
  std::vector<std::string> names;
  for (auto [pb, pe] : split_commas(t, b, e)) {
    std::string name;
    bool pack = false;
    for (size_t i = pb; i < pe && !t[i].is("="); ++i) {
      if (t[i].is("<")) i = match_close(t, i);
      else if (t[i].is("(")) {
        // A function-pointer parameter `void (*deq)(device const T*, short)` (ggml) is named
        // inside its first parentheses; the parameter list's words are not its name.
        if (t[i + 1].is("*") && t[i + 2].ident()) name = t[i + 2].text;
        i = match_close(t, i);
      } else if (t[i].is("...")) pack = true;
      else if (t[i].ident()) name = t[i].text;
    }
    if (name.empty())
      throw FrontError(t[pb].file, t[pb].line, "unnamed template parameter of a kernel");
    names.push_back(pack ? name + "..." : name);
  }
  return names;
}

// Tokens [b, e) with address spaces erased, for text copied into generated code (a kernel
// template's parameter list: ggml's `void (*deq)(device const q_t*, short, thread float4&)`),
// which the address-space rule never sees. `constant` becomes `const`.
Tokens without_address_spaces(const Tokens& t, size_t b, size_t e) {
  Tokens out;
  for (size_t i = b; i < e; ++i) {
    if (t[i].is("constant")) out.push_back(make_token(TokKind::Ident, "const", t[i]));
    else if (!is_address_space(t[i])) out.push_back(t[i]);
  }
  return out;
}

bool qualifier_word(const Token& k) {
  return k.is("const") || k.is("volatile") || k.is("::") || k.is("unsigned") || k.is("signed") ||
         k.is("long") || k.is("struct") || k.is("typename") || is_address_space(k);
}

// A parameter's tokens without its attributes, and the attributes.
struct ParamTokens {
  std::vector<Attribute> attrs;
  Tokens decl;
};

ParamTokens split_attributes(const Tokens& t, size_t b, size_t e) {
  ParamTokens p;
  for (size_t i = b; i < e; ++i) {
    if (is_attribute_start(t, i)) {
      auto a = parse_attributes(t, i);
      p.attrs.insert(p.attrs.end(), a.begin(), a.end());
      i = attribute_end(t, i) - 1;
      continue;
    }
    p.decl.push_back(t[i]);
  }
  return p;
}

// An array parameter (`constant const size_t strides[2]`, MLX's binary kernels) is a pointer,
// as any C++ array parameter is: its extent is dropped (the caller puts `*` in its place).
bool drop_array_extent(Tokens& decl, const Token& at, size_t position) {
  if (decl.empty() || !decl.back().is("]")) return false;
  size_t open = decl.size() - 1;
  while (open > 0 && !decl[open].is("[")) --open;
  if (open > 0 && decl[open - 1].is("]"))
    throw FrontError(at.file, at.line,
                     "kernel parameter #" + std::to_string(position) +
                         ": a multi-dimensional array parameter is not supported");
  decl.resize(open);
  return true;
}

// The [[buffer]], [[threadgroup]] or built-in attribute; a device or constant pointer without one
// is bound implicitly (`implicit` is filled in and returned).
const Attribute* find_binding(const ParamTokens& p, const Token& at, const std::string& shown,
                              Attribute& implicit) {
  const Attribute* binding = nullptr;
  for (const Attribute& a : p.attrs) {
    if (a.name == "function_constant") continue;  // an optional argument (parse_param)
    if (is_unsupported_param_attribute(a.name))
      throw FrontError(
          at.file, a.line,
          "kernel parameter " + shown + ": [[" + a.name + "]] is not supported by metalsim");
    if (a.name == "buffer" || a.name == "threadgroup" || a.name == "texture" ||
        a.name == "sampler" || is_builtin_name(a.name)) {
      if (binding)
        throw FrontError(at.file, a.line, "kernel parameter " + shown + " has two bindings");
      binding = &a;
    }
  }
  if (binding) return binding;
  // ggml writes `device const char * src0,` without [[buffer(N)]]: Metal gives such buffers
  // the lowest indices left free, in parameter order (resolved in parse_kernel_signature).
  bool buffer_space = false;
  for (const Token& k : p.decl) buffer_space = buffer_space || k.is("device") || k.is("constant");
  if (!buffer_space)
    throw FrontError(at.file, at.line,
                     "kernel parameter " + shown +
                         " has no [[buffer(N)]], [[threadgroup(N)]], [[texture(N)]], "
                         "[[sampler(N)]] or built-in attribute");
  implicit.name = "buffer";
  implicit.line = at.line;
  return &implicit;
}

// The type's address-space words, and the rest of its tokens.
struct AddressSpaces {
  bool device = false, constant = false, threadgroup = false, thread = false;
  Tokens rest;
  bool any() const { return device || constant || threadgroup || thread; }
};

AddressSpaces split_address_spaces(const Tokens& decl) {
  AddressSpaces s;
  for (const Token& k : decl) {
    if (k.is("device")) s.device = true;
    else if (k.is("constant")) s.constant = true;
    else if (k.is("threadgroup")) s.threadgroup = true;
    else if (k.is("thread")) s.thread = true;
    else s.rest.push_back(k);
  }
  return s;
}

// [[buffer(N)]] or [[threadgroup(N)]]: a pointer or reference into an address space.
void reflect_bound_arg(KernelArg& arg, const Attribute& binding, bool implicit,
                       AddressSpaces spaces, const Token& at, const std::string& shown) {
  Tokens& elem = spaces.rest;
  arg.index = binding.args;
  arg.implicit_index = implicit;
  if (arg.index.empty() && !implicit)
    throw FrontError(at.file, binding.line,
                     "kernel parameter " + shown + ": [[" + binding.name + "]] needs an index");
  if (elem.empty() || !(elem.back().is("*") || elem.back().is("&")))
    throw FrontError(at.file, at.line,
                     "kernel parameter " + shown + " bound to [[" + binding.name +
                         "]] must be a pointer or a reference");
  arg.is_reference = elem.back().is("&");
  elem.pop_back();
  if (binding.name == "buffer") {
    if (!spaces.device && !spaces.constant)
      throw FrontError(at.file, at.line,
                       "kernel parameter " + shown +
                           " bound to [[buffer]] needs the device or constant address space");
    arg.kind = spaces.device ? ArgKind::DeviceBuffer : ArgKind::ConstantBuffer;
    if (!spaces.device) arg.is_const = true;
  } else {
    if (!spaces.threadgroup)
      throw FrontError(at.file, at.line,
                       "kernel parameter " + shown +
                           " bound to [[threadgroup]] needs the threadgroup address space");
    arg.kind = ArgKind::Threadgroup;
  }
  arg.element_type = join(elem, 0, elem.size());
  if (arg.is_const && arg.element_type.find("const") == std::string::npos)
    arg.element_type = "const " + arg.element_type;
}

// [[texture(N)]] or [[sampler(N)]]: a texture or sampler object, passed by value. Its type as
// written (`texture2d<T, access::write>`) is copied into the generated binding and reflection.
void reflect_resource_arg(KernelArg& arg, const Attribute& binding, const AddressSpaces& spaces,
                          const Token& at, const std::string& shown) {
  if (binding.args.empty())
    throw FrontError(at.file, binding.line,
                     "kernel parameter " + shown + ": [[" + binding.name + "]] needs an index");
  if (spaces.any())
    throw FrontError(at.file, at.line,
                     "kernel parameter " + shown + " bound to [[" + binding.name +
                         "]] cannot have an address space");
  if (spaces.rest.empty() || spaces.rest.back().is("*") || spaces.rest.back().is("&"))
    throw FrontError(at.file, at.line,
                     "kernel parameter " + shown + " bound to [[" + binding.name +
                         "]] must be a texture or sampler passed by value");
  arg.kind = binding.name == "texture" ? ArgKind::Texture : ArgKind::Sampler;
  arg.index = binding.args;
  arg.element_type = "void";
}

// A built-in: uint, ushort, uint2, ushort3, ... (any integer scalar or vector name).
void reflect_builtin_arg(KernelArg& arg, const Attribute& binding, const AddressSpaces& spaces,
                         const Token& at, const std::string& shown) {
  if (spaces.any())
    throw FrontError(at.file, at.line,
                     "built-in kernel parameter " + shown + " cannot have an address space");
  arg.kind = ArgKind::Builtin;
  arg.builtin = binding.name;
  Tokens value;
  for (const Token& k : spaces.rest)
    if (!k.is("const")) value.push_back(k);
  if (value.empty() || !value.back().ident())
    throw FrontError(at.file, at.line,
                     "built-in kernel parameter " + shown +
                         ": expected a scalar or vector type name, got '" + arg.type + "'");
  arg.element_type = join(value, 0, value.size());
  const std::string last = value.back().text;
  const char d = last.back();
  const bool vector = d == '2' || d == '3' || d == '4';
  arg.builtin_components = vector ? d - '0' : 1;
  arg.builtin_scalar = vector ? join(value, 0, value.size() - 1) + last.substr(0, last.size() - 1)
                              : arg.element_type;
}

KernelArg parse_param(const Tokens& t, size_t b, size_t e, size_t position) {
  ParamTokens p = split_attributes(t, b, e);
  const Token& at = t[b];
  KernelArg arg;
  const bool array_param = drop_array_extent(p.decl, at, position);
  if (p.decl.size() >= 2 && p.decl.back().ident() && !qualifier_word(p.decl[p.decl.size() - 2])) {
    arg.name = p.decl.back().text;
    p.decl.pop_back();
  }
  const std::string shown =
      arg.name.empty() ? "#" + std::to_string(position) : "'" + arg.name + "'";
  if (array_param) p.decl.push_back(make_token(TokKind::Punct, "*", at, false));
  arg.type = join(p.decl, 0, p.decl.size());

  Attribute implicit;
  const Attribute* binding = find_binding(p, at, shown, implicit);
  AddressSpaces spaces = split_address_spaces(p.decl);
  for (const Token& k : spaces.rest)
    if (k.is("const")) arg.is_const = true;
  if (binding->name == "buffer" || binding->name == "threadgroup")
    reflect_bound_arg(arg, *binding, binding == &implicit, std::move(spaces), at, shown);
  else if (binding->name == "texture" || binding->name == "sampler")
    reflect_resource_arg(arg, *binding, spaces, at, shown);
  else reflect_builtin_arg(arg, *binding, spaces, at, shown);
  for (const Attribute& a : p.attrs)
    if (a.name == "function_constant") arg.active_if = a.args;
  return arg;
}

}  // namespace

KernelDecl parse_kernel_signature(const Tokens& t, size_t head, size_t name_at) {
  KernelDecl k;
  k.name = t[name_at].text;
  k.host_name = "\"" + k.name + "\"";
  k.file = t[name_at].file;
  k.line = t[name_at].line;
  size_t i = head;
  if (t[i].is("template") && i + 1 < name_at && t[i + 1].is("<")) {
    size_t close = match_close(t, i + 1);
    k.is_template = true;
    Tokens params = without_address_spaces(t, i + 2, close);
    // `typename Op = Less<T>>`: the `>>` closing the list also closes the default's list.
    if (t[close].is(">>")) params.push_back(make_token(TokKind::Punct, ">", t[close], false));
    k.template_params = join(params, 0, params.size());
    k.template_arg_names = template_arg_names(t, i + 2, close);
    i = close + 1;
  }
  for (; i < name_at; ++i) {
    if (!is_attribute_start(t, i)) continue;
    for (const Attribute& a : parse_attributes(t, i)) {
      if (a.name == "max_total_threads_per_threadgroup") k.max_total_threads = a.args;
      if (a.name == "host_name") {
        if (k.is_template)
          throw FrontError(
              k.file, a.line,
              "[[host_name]] on a kernel template: put it on an explicit instantiation");
        k.host_name = a.args;
      }
    }
    i = attribute_end(t, i) - 1;
  }
  size_t open = name_at + 1;
  size_t close = match_close(t, open);
  size_t position = 0;
  for (auto [pb, pe] : split_commas(t, open + 1, close)) {
    if (pe - pb == 1 && t[pb].is("void")) continue;
    k.args.push_back(parse_param(t, pb, pe, position++));
  }
  // Implicit buffer indices: the lowest ones no [[buffer(N)]] names, in parameter order. An
  // explicit index that is not a literal makes the assignment unknowable here: error.
  std::vector<bool> used(64, false);
  bool any_implicit = false;
  for (const KernelArg& a : k.args) any_implicit = any_implicit || a.implicit_index;
  if (any_implicit) {
    for (const KernelArg& a : k.args) {
      if (a.implicit_index ||
          (a.kind != ArgKind::DeviceBuffer && a.kind != ArgKind::ConstantBuffer))
        continue;
      size_t n = 0;
      bool literal =
          !a.index.empty() && a.index.find_first_not_of("0123456789") == std::string::npos;
      if (literal) n = std::stoul(a.index);
      if (!literal || n >= used.size()) {
        throw FrontError(
            k.file, k.line,
            "kernel '" + k.name +
                "' mixes buffers without [[buffer(N)]] and a non-literal buffer index '" + a.index +
                "'");
      }
      used[n] = true;
    }
    size_t next = 0;
    for (KernelArg& a : k.args) {
      if (!a.implicit_index) continue;
      while (used[next]) ++next;
      used[next] = true;
      a.index = std::to_string(next);
    }
  }
  return k;
}

}  // namespace metalsim::front
