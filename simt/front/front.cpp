#include "simt/front/front.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "simt/front/emitter.h"

namespace metalsim::front {
namespace {

namespace fs = std::filesystem;
constexpr int kMaxIncludeDepth = 64;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The directive's name and the rest: "#  include "x"" -> {"include", "\"x\""}.
std::pair<std::string, std::string> split_directive(const std::string& text) {
  size_t i = 1;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  size_t b = i;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
    ++i;
  std::string name = text.substr(b, i - b);
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return {name, text.substr(i)};
}

std::string join_tokens(const Tokens& t) {
  std::string s;
  for (const Token& k : t) {
    if (!s.empty() && (k.space_before || k.kind == TokKind::Raw)) s += ' ';
    s += k.text;
  }
  return s;
}

// Apple frameworks with no metalsim counterpart. Their include becomes the include of a header
// that cannot exist and whose name says why, so a file that reaches it stops there with one fatal
// error naming the framework (MLX's *_nax kernels include MetalPerformancePrimitives, the tensor
// operations of Apple's newest GPUs) instead of the compiler's cascade about missing names (an
// #error does not stop the compile), while a file that includes it only under a macro it leaves
// undefined (ggml-metal.metal: `#ifdef GGML_METAL_HAS_TENSOR`) compiles: the front does not
// evaluate #if, the preprocessor does.
void refuse_apple_framework(const std::string& include, Token& directive) {
  static const char* const kFrameworks[] = {"MetalPerformancePrimitives"};
  if (include.empty() || include[0] != '<') return;
  for (const char* f : kFrameworks) {
    std::string dir = std::string("<") + f + "/";
    if (include.rfind(dir, 0) != 0) continue;
    directive.text = std::string("#include <metalsim does not provide Apple's ") + f +
                     " framework (" + include.substr(1, include.find('>') - 1) +
                     "): its kernels cannot run here>";
  }
}

}  // namespace

// `from`: the including file, whose folder is searched first; "" for none.
std::string Front::resolve_include(const std::string& name, const std::string& from) const {
  std::vector<fs::path> dirs;
  if (!from.empty()) dirs.push_back(fs::path(from).parent_path());
  for (const std::string& d : include_dirs_) dirs.emplace_back(d);
  for (const fs::path& d : dirs) {
    fs::path p = d / name;
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
  }
  return {};
}

namespace {

// A `#line N "file"` directive of the input: the lines after it are line N, N+1, ... of `file`
// (of the current file when the name is left out), as the C preprocessor would number them.
// Generated MSL (the Python package's metal_kernel wraps a user's body in a signature) uses it
// so that errors and reports name the user's lines. The emitter writes its own #line
// directives, so the input's is dropped once applied.
struct LineMapping {
  int file = -1;  // -1: no #line seen yet
  int delta = 0;  // added to a token's line
  void apply(Token& k) const {
    if (file < 0) return;
    k.file = file;
    k.line += delta;
  }
};

bool read_line_directive(const std::string& rest, const Token& k, std::vector<std::string>& files,
                         LineMapping& mapping) {
  size_t end = 0;
  while (end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[end]))) ++end;
  if (end == 0) return false;
  const int number = std::stoi(rest.substr(0, end));
  size_t quote = rest.find('"', end);
  int file = mapping.file < 0 ? k.file : mapping.file;
  if (quote != std::string::npos) {
    std::string name = rest.substr(quote + 1, rest.find('"', quote + 1) - quote - 1);
    auto it = std::find(files.begin(), files.end(), name);
    file = static_cast<int>(it - files.begin());
    if (it == files.end()) files.push_back(name);
  }
  const int next_line =
      k.line + 1 + static_cast<int>(std::count(k.text.begin(), k.text.end(), '\n'));
  mapping = {file, number - next_line};
  return true;
}

}  // namespace

Tokens Front::load(std::string_view text, const std::string& path, int depth) {
  int file = static_cast<int>(ctx_.files.size());
  ctx_.files.push_back(path);
  read_.push_back(path);
  Tokens raw = lex(text, file);
  Tokens out;
  out.reserve(raw.size());
  LineMapping mapping;
  for (Token& k : raw) {
    if (k.kind == TokKind::Directive) {
      auto [name, rest] = split_directive(k.text);
      if (name == "line" && read_line_directive(rest, k, ctx_.files, mapping)) continue;
    }
    mapping.apply(k);
    if (k.kind == TokKind::Directive) {
      auto [name, rest] = split_directive(k.text);
      if (name == "pragma" && rest.rfind("once", 0) == 0 && depth > 0) {
        if (std::find(once_.begin(), once_.end(), path) == once_.end()) once_.push_back(path);
        continue;
      }
      if (name == "include") refuse_apple_framework(rest, k);
      // "header" is looked for beside the including file, then in the include directories;
      // <header> in the include directories only, and never MSL's own <metal_*> headers (they
      // stay includes of metalsim's, whatever folder a user names).
      const bool angle = !rest.empty() && rest[0] == '<' && rest.rfind("<metal", 0) != 0;
      if (name == "include" && rest.size() > 2 && (rest[0] == '"' || angle)) {
        std::string header = rest.substr(1, rest.find(angle ? '>' : '"', 1) - 1);
        std::string resolved = resolve_include(header, angle ? "" : path);
        if (!resolved.empty()) {
          if (depth >= kMaxIncludeDepth)
            throw FrontError(k.file, k.line, "#include nested too deeply");
          if (std::find(once_.begin(), once_.end(), resolved) != once_.end()) continue;
          Tokens inner = load(read_file(resolved), resolved, depth + 1);
          out.insert(out.end(), inner.begin(), inner.end());
          continue;
        }
      }
    }
    out.push_back(std::move(k));
  }
  return out;
}

std::string rewrite_macro_body(std::string_view body, int file, int line, RewriteContext& ctx) {
  Tokens t = lex(body, file, line);
  std::string before = join_tokens(t);
  ctx.macro_body = true;
  try {
    rewrite_literals(t, ctx);
    rewrite_host_name_instances(t, ctx);
    rewrite_threadgroup_variables(t, ctx);
    rewrite_address_space(t, ctx);
    rewrite_attributes(t, ctx);
  } catch (...) {
    ctx.macro_body = false;
    throw;
  }
  ctx.macro_body = false;
  for (const Token& k : t) {
    if (k.is("kernel"))
      throw FrontError(file, line,
                       "a kernel defined inside a macro is not supported; instantiate with "
                       "[[host_name]] instead");
  }
  std::string after = join_tokens(t);
  return after == before ? std::string(body) : after;
}

void Front::rewrite_directives(Tokens& t) {
  for (Token& k : t) {
    if (k.kind != TokKind::Directive) continue;
    auto [name, rest] = split_directive(k.text);
    if (name != "define") continue;
    size_t i = 0;
    while (i < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[i])) || rest[i] == '_'))
      ++i;
    if (i < rest.size() && rest[i] == '(') i = rest.find(')', i) + 1;
    if (i == 0 || i > rest.size()) continue;
    std::string head = rest.substr(0, i);
    std::string body = rest.substr(i);
    std::string rewritten = rewrite_macro_body(body, k.file, k.line, ctx_);
    if (rewritten != body) k.text = "#define " + head + " " + rewritten;
  }
}

std::string Front::translate_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return translate_source(read_file(path), path);
}

std::string Front::translate_source(std::string_view text, const std::string& path) {
  ctx_ = RewriteContext{};
  once_.clear();
  read_.clear();
  Tokens t = load(text, path, 0);
  rewrite_directives(t);
  rewrite_coherence_qualifiers(t, ctx_);
  rewrite_literals(t, ctx_);
  rewrite_range_designators(t, ctx_);
  rewrite_host_name_instances(t, ctx_);
  rewrite_member_specializations(t, ctx_);
  rewrite_address_space_overloads(t, ctx_);
  rewrite_function_constants(t, ctx_);
  rewrite_kernels(t, ctx_);
  rewrite_threadgroup_variables(t, ctx_);
  rewrite_address_space(t, ctx_);
  rewrite_attributes(t, ctx_);

  Emitter e(ctx_.files);
  e.raw_line("// Generated by metalsim-front from " + path + ": do not edit.");
  e.raw_line("#include \"simt/engine/generated_code.h\"");
  // Apple's compiler knows MSL's types before any include (MLX's fence.metal names
  // metal::thread_scope before it includes <metal_atomic>): the library comes first. Without a
  // using-directive, so a file that does not include it sees only metal::-qualified names.
  e.raw_line("#include <metal_stdlib>");
  e.raw_line(
      "[[maybe_unused]] static std::span<const ::metalsim::abi::FunctionConstantInfo> "
      "ms_function_constants();");
  e.line_directive(0, 1);
  e.emit(t);
  int last_line = t.empty() ? 1 : t.back().line + 1;
  e.line_directive(0, last_line);
  std::string table =
      "static std::span<const ::metalsim::abi::FunctionConstantInfo> ms_function_constants() {";
  if (ctx_.function_constants.empty()) {
    table += " return {}; }";
  } else {
    table += "\n  static const ::metalsim::abi::FunctionConstantInfo ms_table[] = {\n";
    for (const auto& fc : ctx_.function_constants) {
      table += "      {" + c_string(fc.name) + ", static_cast<uint32_t>(" + fc.index + "), " +
               c_string(fc.type) + ", static_cast<uint32_t>(sizeof(" + fc.type + ")), " +
               c_string(ctx_.file_name(fc.file)) + ", " + std::to_string(fc.line) + "},\n";
    }
    table += "  };\n  return ms_table;\n}";
  }
  e.raw_line(table);
  return e.take();
}

std::string Front::format_error(const FrontError& e) const {
  std::string file = e.file >= 0 && static_cast<size_t>(e.file) < ctx_.files.size()
                         ? ctx_.files[static_cast<size_t>(e.file)]
                         : "<input>";
  return file + ":" + std::to_string(e.line) + ": error: " + e.what();
}

}  // namespace metalsim::front
