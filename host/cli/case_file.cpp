#include "host/cli/case_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

namespace metalsim::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// One field of the file being read: its path for messages, and typed accessors that throw a
// CaseFileError naming the path.
class Field {
 public:
  Field(const json& value, std::string path, const std::string& origin)
      : j_(value), path_(std::move(path)), origin_(origin) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw CaseFileError(origin_ + ": " + (path_.empty() ? "" : path_ + ": ") + what);
  }
  const json& value() const { return j_; }
  const std::string& path() const { return path_; }
  bool has(const char* key) const { return j_.is_object() && j_.contains(key); }
  Field at(const char* key) const {
    if (!has(key)) fail(std::string("needs \"") + key + "\"");
    return child(key);
  }
  Field child(const char* key) const {
    return {j_.at(key), path_.empty() ? key : path_ + "." + key, origin_};
  }
  Field item(size_t i) const { return {j_.at(i), path_ + "[" + std::to_string(i) + "]", origin_}; }
  std::vector<Field> items() const {
    if (!j_.is_array()) fail("must be a list");
    std::vector<Field> out;
    for (size_t i = 0; i < j_.size(); ++i) out.push_back(item(i));
    return out;
  }
  void only_keys(std::initializer_list<const char*> keys) const {
    if (!j_.is_object()) fail("must be an object");
    for (const auto& [k, v] : j_.items())
      if (std::none_of(keys.begin(), keys.end(), [&](const char* x) { return k == x; })) {
        std::string known;
        for (const char* x : keys) known += std::string(known.empty() ? "" : ", ") + x;
        fail("unknown field \"" + k + "\" (known: " + known + ")");
      }
  }
  std::string string() const {
    if (!j_.is_string()) fail("must be a string");
    return j_.get<std::string>();
  }
  double number() const {
    if (!j_.is_number()) fail("must be a number");
    return j_.get<double>();
  }
  int64_t integer() const {
    if (!j_.is_number_integer()) fail("must be an integer");
    return j_.get<int64_t>();
  }
  bool boolean() const {
    if (!j_.is_boolean()) fail("must be true or false");
    return j_.get<bool>();
  }
  uint32_t binding_index() const {
    const int64_t i = integer();
    if (i < 0 || i > 30) fail("binding index " + std::to_string(i) + " is outside 0..30");
    return uint32_t(i);
  }
  // An integer or a string holding an expression.
  Expression expression() const {
    if (j_.is_number_integer()) return Expression::constant(j_.get<int64_t>());
    if (!j_.is_string()) fail("must be an integer or an expression in a string");
    try {
      return Expression::parse(j_.get<std::string>());
    } catch (const ExpressionError& e) {
      fail(e.what());
    }
  }
  // A value of a bytes field or function constant: an integer, a number, true/false, or an
  // expression in a string.
  Expression value_expression() const {
    if (j_.is_boolean()) return Expression::constant(j_.get<bool>() ? 1 : 0);
    if (j_.is_number_float()) return Expression::constant_float(j_.get<double>());
    if (!j_.is_number() && !j_.is_string())
      fail("must be a number, true/false, or an expression in a string");
    return expression();
  }
  ElementType element_type() const {
    ElementType t;
    if (!parse_element_type(string(), t))
      fail("unknown type \"" + string() +
           "\" (float, half, char, uchar, short, ushort, int, uint, long, ulong)");
    return t;
  }

 private:
  const json& j_;
  std::string path_;
  const std::string& origin_;
};

std::string resolve(const std::string& dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || dir.empty()) return path;
  return (fs::path(dir) / path).lexically_normal().string();
}

spec::ParamDef read_param(const std::string& name, const Field& f) {
  f.only_keys({"min", "max", "default", "choices", "boundaries", "help"});
  spec::ParamDef d;
  d.name = name;
  d.help = f.has("help") ? f.child("help").string() : "";
  if (f.has("choices")) {
    for (const Field& c : f.child("choices").items()) d.choices.push_back(c.integer());
    if (d.choices.empty()) f.child("choices").fail("must list at least one value");
    d.min = *std::min_element(d.choices.begin(), d.choices.end());
    d.max = *std::max_element(d.choices.begin(), d.choices.end());
  }
  if (f.has("min")) d.min = f.child("min").integer();
  if (f.has("max")) d.max = f.child("max").integer();
  if (!f.has("choices") && !f.has("max")) f.fail("needs \"max\" or \"choices\"");
  if (d.min > d.max)
    f.fail("min " + std::to_string(d.min) + " is above max " + std::to_string(d.max));
  d.fallback = f.has("default") ? f.child("default").integer() : d.min;
  const bool allowed = d.choices.empty()
                           ? d.fallback >= d.min && d.fallback <= d.max
                           : std::count(d.choices.begin(), d.choices.end(), d.fallback);
  if (!allowed) f.child(f.has("default") ? "default" : "min").fail("the default is not allowed");
  if (f.has("boundaries"))
    for (const Field& b : f.child("boundaries").items()) d.boundaries.push_back(b.integer());
  return d;
}

std::array<Expression, 3> read_size3(const Field& f) {
  const std::vector<Field> items = f.items();
  if (items.empty() || items.size() > 3) f.fail("must list 1 to 3 sizes (x, y, z)");
  std::array<Expression, 3> out = {Expression::constant(1), Expression::constant(1),
                                   Expression::constant(1)};
  for (size_t i = 0; i < items.size(); ++i) out[i] = items[i].expression();
  return out;
}

// "grid" (threadgroups) or "threads" (dispatchThreads), and "threadgroup".
// `case_threadgroup`: a reference's dispatch without "threadgroup" uses the case's.
Dispatch read_dispatch(const Field& f, const Dispatch* case_dispatch = nullptr) {
  Dispatch d;
  if (f.has("grid") == f.has("threads"))
    f.fail("needs exactly one of \"grid\" (threadgroups) and \"threads\" (dispatchThreads)");
  d.threads = f.has("threads");
  d.grid = read_size3(f.child(d.threads ? "threads" : "grid"));
  d.threadgroup = case_dispatch != nullptr && !f.has("threadgroup")
                      ? case_dispatch->threadgroup
                      : read_size3(f.at("threadgroup"));
  return d;
}

Fill read_fill(const Field& f, const std::string& dir) {
  Fill fill;
  if (f.value().is_string()) {  // shorthands: "random", "zero"
    const std::string s = f.string();
    if (s == "random") return fill;
    if (s == "zero") {
      fill.kind = Fill::Kind::constant;
      return fill;
    }
    f.fail("\"" + s + "\" is not a fill (\"random\", \"zero\", or an object)");
  }
  f.only_keys({"random", "constant", "range", "file", "blocks"});
  if (f.value().size() != 1) f.fail("needs exactly one of random, constant, range, file, blocks");
  auto pair = [&](const Field& p, double& a, double& b) {
    const std::vector<Field> v = p.items();
    if (v.size() != 2) p.fail("must be [first, second]");
    a = v[0].number();
    b = v[1].number();
  };
  if (f.has("random")) {
    pair(f.child("random"), fill.low, fill.high);
    if (fill.low > fill.high) f.child("random").fail("low is above high");
  } else if (f.has("constant")) {
    fill.kind = Fill::Kind::constant;
    fill.value = f.child("constant").number();
  } else if (f.has("range")) {
    fill.kind = Fill::Kind::range;
    pair(f.child("range"), fill.start, fill.step);
  } else if (f.has("blocks")) {
    fill.kind = Fill::Kind::blocks;
    fill.blocks = find_block_layout(f.child("blocks").string());
    if (fill.blocks == nullptr)
      f.child("blocks").fail("unknown block format \"" + f.child("blocks").string() + "\" (" +
                             block_layout_names() + ")");
  } else {
    fill.kind = Fill::Kind::file;
    fill.path = resolve(dir, f.child("file").string());
    if (!fs::exists(fill.path)) f.child("file").fail("no file " + fill.path);
  }
  return fill;
}

BufferDecl read_buffer(const Field& f, const std::string& dir) {
  f.only_keys({"name", "index", "type", "count", "offset", "fill", "output", "written", "finite"});
  BufferDecl b;
  b.path = f.path();
  b.index = f.at("index").binding_index();
  b.name = f.has("name") ? f.child("name").string() : "";  // "": the kernel argument's name
  b.type = f.at("type").element_type();
  b.count = f.at("count").expression();
  if (f.has("offset")) b.offset = f.child("offset").expression();
  if (f.has("fill")) b.fill = read_fill(f.child("fill"), dir);
  if (b.fill && b.fill->kind == Fill::Kind::blocks && element_size(b.type) != 1)
    f.child("type").fail("a blocks fill needs a char or uchar buffer (its count in bytes), not " +
                         std::string(element_type_name(b.type)));
  b.output = f.has("output") && f.child("output").boolean();
  if (!b.fill && !b.output) f.fail("needs a \"fill\" (an input) or \"output\": true");
  if (f.has("written")) {
    const std::string w = f.child("written").string();
    if (w != "all" && w != "any") f.child("written").fail("must be \"all\" or \"any\"");
    b.all_written = w == "all";
  }
  if (b.fill) b.all_written = false;  // in place: the input is there, nothing to poison
  if (element_size(b.type) == 1) b.all_written = false;  // no byte value can mean "unwritten"
  b.finite = !f.has("finite") || f.child("finite").boolean();
  return b;
}

// {"index": 4, "alias": "src0", "offset": "..."}: the memory of another buffer of the list.
AliasDecl read_alias(const Field& f) {
  f.only_keys({"index", "alias", "offset"});
  AliasDecl a;
  a.path = f.path();
  a.index = f.at("index").binding_index();
  a.target = f.child("alias").string();
  if (f.has("offset")) a.offset = f.child("offset").expression();
  return a;
}

// The values of a field of type `t`: a scalar's one value, a vector's list of lanes, an
// array's list of elements (each a scalar or a vector's list).
std::vector<Expression> read_values(const Field& f, const MslType& t) {
  auto one = [&](const Field& v) -> std::vector<Expression> {
    if (t.lanes == 1) return {v.value_expression()};
    const std::vector<Field> lanes = v.items();
    if (lanes.size() != t.lanes)
      v.fail(t.element().name() + " needs a list of " + std::to_string(t.lanes) + " values");
    std::vector<Expression> out;
    for (const Field& x : lanes) out.push_back(x.value_expression());
    return out;
  };
  if (t.array == 0) return one(f);
  const std::vector<Field> elements = f.items();
  if (elements.size() != t.array)
    f.fail(t.name() + " needs a list of " + std::to_string(t.array) + " elements");
  std::vector<Expression> out;
  for (const Field& e : elements)
    for (Expression& x : one(e)) out.push_back(std::move(x));
  return out;
}

MslType read_msl_type(const Field& f) {
  MslType t;
  if (!parse_msl_type(f.string(), t))
    f.fail("unknown type \"" + f.string() +
           "\" (bool, char, uchar, short, ushort, int, uint, long, ulong, half, float; a vector "
           "such as float4 or packed_float3; an array such as uint[4])");
  return t;
}

// {"name", "type", "value"}, or {"name", "fields": [...]} (a nested struct).
BytesField read_bytes_field(const Field& f) {
  f.only_keys({"name", "type", "value", "fields"});
  BytesField b;
  b.name = f.has("name") ? f.child("name").string() : "";
  if (f.has("fields")) {
    if (f.has("type") || f.has("value"))
      f.fail("a nested struct has \"fields\" and no \"type\" or \"value\"");
    for (const Field& x : f.child("fields").items()) b.fields.push_back(read_bytes_field(x));
    if (b.fields.empty()) f.child("fields").fail("has no fields");
    return b;
  }
  b.type = read_msl_type(f.at("type"));
  b.path = f.path() + ".value";
  b.values = read_values(f.at("value"), b.type);
  return b;
}

BytesDecl read_bytes(const Field& f) {
  f.only_keys({"index", "type", "values", "fields"});
  BytesDecl b;
  b.index = f.at("index").binding_index();
  if (f.has("values") == f.has("fields"))
    f.fail("needs \"type\" with \"values\", or \"fields\" (each with type and value)");
  if (f.has("fields")) {
    if (f.has("type")) f.child("type").fail("goes in each of \"fields\"");
    for (const Field& x : f.child("fields").items()) b.fields.push_back(read_bytes_field(x));
  } else {
    // `values` of `type`: an array of that type.
    BytesField all;
    all.type = read_msl_type(f.at("type"));
    if (all.type.array > 0) f.child("type").fail("must not be an array: list the elements");
    all.type.array = uint32_t(f.child("values").items().size());
    if (all.type.array == 0) f.child("values").fail("has no values");
    all.path = f.path() + ".values";
    all.values = read_values(f.child("values"), all.type);
    b.fields.push_back(std::move(all));
  }
  if (b.fields.empty()) f.fail("has no values");
  return b;
}

// {"name" or "index", "type" (optional), "value"}: a scalar's value, or a vector's list.
FunctionConstantDecl read_function_constant(const Field& f) {
  f.only_keys({"name", "index", "type", "value"});
  FunctionConstantDecl c;
  c.path = f.path();
  if (f.has("name") == f.has("index"))
    f.fail("needs \"name\" or \"index\" (the N of [[function_constant(N)]])");
  if (f.has("name")) c.name = f.child("name").string();
  if (f.has("index")) {
    c.index = f.child("index").integer();
    if (c.index < 0 || c.index > 65535) f.child("index").fail("must be 0 to 65535");
  }
  if (f.has("type")) {
    c.type = read_msl_type(f.child("type")).name();
    if (c.type.find('[') != std::string::npos)
      f.child("type").fail("a function constant is a scalar or a vector");
  }
  const Field v = f.at("value");
  if (v.value().is_array())
    for (const Field& x : v.items()) c.values.push_back(x.value_expression());
  else c.values.push_back(v.value_expression());
  return c;
}

Reference read_reference(const Field& f, const std::string& dir, const Dispatch& case_dispatch) {
  f.only_keys({"kernel", "grid", "threads", "threadgroup", "library", "function"});
  Reference r;
  if (f.has("kernel") == f.has("library"))
    f.fail("needs \"kernel\" (another kernel of the file) or \"library\" with \"function\"");
  if (f.has("kernel")) {
    r.kind = Reference::Kind::kernel;
    r.kernel = f.child("kernel").string();
    if (f.has("grid") || f.has("threads")) r.dispatch = read_dispatch(f, &case_dispatch);
    return r;
  }
  r.kind = Reference::Kind::function;
  r.library = resolve(dir, f.child("library").string());
  r.function = f.at("function").string();
  return r;
}

spec::Tolerance read_tolerance(const Field& f) {
  f.only_keys({"abs", "rel", "why"});
  spec::Tolerance t;
  t.abs = f.has("abs") ? f.child("abs").number() : 0;
  t.rel = f.has("rel") ? f.child("rel").number() : 0;
  t.why = f.has("why") ? f.child("why").string() : "from the case file";
  if (t.abs < 0 || t.rel < 0) f.fail("abs and rel must not be negative");
  return t;
}

// Every name an expression reads must be a parameter or a let.
void check_expressions(const CaseFile& c) {
  std::set<std::string> names;
  for (const auto& p : c.params) names.insert(p.name);
  for (const auto& [name, e] : c.lets) names.insert(name);
  const std::string known = c.lets.empty() ? "a parameter" : "a parameter or a let";
  auto fail = [&](const std::string& path, const std::string& what) {
    throw CaseFileError(c.origin + ": " + path + ": " + what);
  };
  auto check = [&](const Expression& e, const std::string& path) {
    for (const std::string& n : e.names())
      if (!names.contains(n))
        fail(path, "expression '" + e.text() + "' reads '" + n + "', which is not " + known);
  };
  auto at = [](const char* list, size_t i) { return list + ("[" + std::to_string(i) + "]"); };
  for (const auto& [name, e] : c.lets) check(e, "let." + name);
  for (size_t i = 0; i < c.constraints.size(); ++i) check(c.constraints[i], at("constraints", i));
  const char* grid = c.dispatch.threads ? "threads" : "grid";
  for (size_t i = 0; i < 3; ++i) check(c.dispatch.grid[i], at(grid, i));
  for (size_t i = 0; i < 3; ++i) check(c.dispatch.threadgroup[i], at("threadgroup", i));
  for (const BufferDecl& b : c.buffers) {
    check(b.count, b.path + ".count");
    check(b.offset, b.path + ".offset");
  }
  for (const AliasDecl& a : c.aliases) check(a.offset, a.path + ".offset");
  for (const BytesDecl& b : c.bytes) for_each_expression(b.fields, check);
  for (const FunctionConstantDecl& f : c.function_constants)
    for (const Expression& e : f.values) check(e, f.path + ".value");
  for (size_t i = 0; i < c.threadgroup_memory.size(); ++i)
    check(c.threadgroup_memory[i].bytes, at("threadgroup_memory", i) + ".bytes");
  for (const auto& [param, values] : c.equivalent)
    if (!names.contains(param)) fail("equivalent", "'" + param + "' is not a parameter");
  for (size_t i = 0; i < c.sweep.size(); ++i)
    for (const auto& [k, v] : c.sweep[i])
      if (!names.contains(k)) fail(at("sweep", i), "'" + k + "' is not a parameter");
}

void check_unique_indices(const CaseFile& c, const Field& root) {
  std::set<uint32_t> seen;
  auto claim = [&](uint32_t index, const std::string& where) {
    if (!seen.insert(index).second)
      throw CaseFileError(c.origin + ": " + where + ": buffer(" + std::to_string(index) +
                          ") is bound twice");
  };
  for (const BufferDecl& b : c.buffers) claim(b.index, b.path + ".index");
  for (const AliasDecl& a : c.aliases) claim(a.index, a.path + ".index");
  for (size_t i = 0; i < c.bytes.size(); ++i)
    claim(c.bytes[i].index, "bytes[" + std::to_string(i) + "].index");
  std::set<uint32_t> tg;
  for (size_t i = 0; i < c.threadgroup_memory.size(); ++i)
    if (!tg.insert(c.threadgroup_memory[i].index).second)
      root.child("threadgroup_memory")
          .item(i)
          .fail("threadgroup(" + std::to_string(c.threadgroup_memory[i].index) +
                ") is given twice");
}

// "let": name -> expression, each reading parameters and other lets; ordered so that each
// follows the lets it reads. A cycle, or a let named as a parameter, is an error.
void read_lets(CaseFile& c, const Field& f) {
  if (!f.value().is_object()) f.fail("must be an object: name -> expression");
  std::map<std::string, Expression> lets;
  for (const auto& [name, v] : f.value().items()) {
    const Field item(v, f.path() + "." + name, c.origin);
    if (std::any_of(c.params.begin(), c.params.end(),
                    [&](const spec::ParamDef& d) { return d.name == name; }))
      item.fail("a parameter has this name already");
    lets.emplace(name, item.value_expression());
  }
  std::set<std::string> done, visiting;
  std::function<void(const std::string&)> visit = [&](const std::string& name) {
    if (done.contains(name)) return;
    if (!visiting.insert(name).second)
      f.fail("'" + name + "' is defined through itself (a let reads the lets it needs)");
    for (const std::string& n : lets.at(name).names())
      if (lets.contains(n)) visit(n);
    visiting.erase(name);
    done.insert(name);
    c.lets.emplace_back(name, lets.at(name));
  };
  for (const auto& [name, e] : lets) visit(name);
}

void read_lists(CaseFile& c, const Field& root) {
  if (root.has("params")) {
    const Field p = root.child("params");
    if (!p.value().is_object()) p.fail("must be an object: name -> {min, max, default, ...}");
    for (const auto& [name, v] : p.value().items())
      c.params.push_back(read_param(name, Field(v, p.path() + "." + name, c.origin)));
  }
  if (root.has("constraints"))
    for (const Field& e : root.child("constraints").items())
      c.constraints.push_back(e.expression());
  if (root.has("let")) read_lets(c, root.child("let"));
  if (root.has("buffers"))
    for (const Field& b : root.child("buffers").items()) {
      if (b.has("alias")) c.aliases.push_back(read_alias(b));
      else c.buffers.push_back(read_buffer(b, c.dir));
    }
  if (root.has("bytes"))
    for (const Field& b : root.child("bytes").items()) c.bytes.push_back(read_bytes(b));
  if (root.has("function_constants"))
    for (const Field& f : root.child("function_constants").items())
      c.function_constants.push_back(read_function_constant(f));
  if (root.has("include_dirs"))
    for (const Field& d : root.child("include_dirs").items()) {
      c.include_dirs.push_back(resolve(c.dir, d.string()));
      if (!fs::is_directory(c.include_dirs.back())) d.fail("no directory " + c.include_dirs.back());
    }
  if (root.has("threadgroup_memory"))
    for (const Field& t : root.child("threadgroup_memory").items()) {
      t.only_keys({"index", "bytes"});
      c.threadgroup_memory.push_back({t.at("index").binding_index(), t.at("bytes").expression()});
    }
  if (root.has("equivalent")) {
    const Field e = root.child("equivalent");
    if (!e.value().is_object()) e.fail("must be an object: parameter -> [values]");
    for (const auto& [name, v] : e.value().items())
      for (const Field& x : Field(v, e.path() + "." + name, c.origin).items())
        c.equivalent[name].push_back(x.integer());
  }
  if (root.has("sweep"))
    for (const Field& s : root.child("sweep").items()) {
      if (!s.value().is_object()) s.fail("must be an object: parameter -> value");
      spec::Params p;
      for (const auto& [k, v] : s.value().items())
        p[k] = Field(v, s.path() + "." + k, c.origin).integer();
      c.sweep.push_back(std::move(p));
    }
}

}  // namespace

CaseFile read_case_file(const json& j, const std::string& origin) {
  CaseFile c;
  c.origin = origin.empty() ? "(command line)" : origin;
  c.dir = origin.empty() ? "" : fs::path(origin).parent_path().string();
  const Field root(j, "", c.origin);
  root.only_keys({"name",        "summary",           "source",       "kernel",
                  "params",      "constraints",       "grid",         "threads",
                  "threadgroup", "buffers",           "bytes",        "threadgroup_memory",
                  "equivalent",  "compare_schedules", "reference",    "tolerance",
                  "sweep",       "math_mode",         "include_dirs", "function_constants",
                  "let"});
  c.kernel = root.at("kernel").string();
  c.name = root.has("name") ? root.child("name").string() : c.kernel;
  c.summary = root.has("summary") ? root.child("summary").string() : "kernel " + c.kernel;
  if (root.has("source")) {
    c.source = resolve(c.dir, root.child("source").string());
    if (!fs::exists(c.source)) root.child("source").fail("no file " + c.source);
  }
  if (root.has("math_mode")) {
    c.math_mode = root.child("math_mode").string();
    if (c.math_mode != "fast" && c.math_mode != "relaxed" && c.math_mode != "safe")
      root.child("math_mode")
          .fail("\"" + c.math_mode + "\" is not a math mode (fast, relaxed, safe)");
  }
  c.dispatch = read_dispatch(root);
  read_lists(c, root);
  if (c.buffers.empty()) root.fail("needs \"buffers\": a kernel with no buffer writes nothing");
  if (std::none_of(c.buffers.begin(), c.buffers.end(),
                   [](const BufferDecl& b) { return b.output; }))
    root.child("buffers").fail("no buffer is an output (\"output\": true)");
  c.compare_schedules = !root.has("compare_schedules") || root.child("compare_schedules").boolean();
  if (root.has("reference"))
    c.reference = read_reference(root.child("reference"), c.dir, c.dispatch);
  if (root.has("tolerance")) c.tolerance = read_tolerance(root.child("tolerance"));
  check_expressions(c);
  check_unique_indices(c, root);
  if (c.sweep.empty()) c.sweep.push_back({});
  c.text = j;
  return c;
}

Scope case_scope(const CaseFile& f, const spec::Params& p) {
  Scope scope = scope_of(p);
  for (const auto& [name, e] : f.lets) {
    try {
      scope[name] = e.value(scope);
    } catch (const ExpressionError& x) {
      throw ExpressionError("let." + name + ": " + x.what());
    }
  }
  return scope;
}

json load_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CaseFileError(path + ": cannot be read");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw CaseFileError(path + ": not valid JSON: " + e.what());
  }
}

}  // namespace metalsim::cli
