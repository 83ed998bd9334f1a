#include "host/cli/case_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace metalsim::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct TypeRow {
  ElementType type;
  const char* name;
  size_t size;
  bool floating;
};
constexpr TypeRow kTypes[] = {
    {ElementType::f32, "float", 4, true},  {ElementType::f16, "half", 2, true},
    {ElementType::i8, "char", 1, false},   {ElementType::u8, "uchar", 1, false},
    {ElementType::i16, "short", 2, false}, {ElementType::u16, "ushort", 2, false},
    {ElementType::i32, "int", 4, false},   {ElementType::u32, "uint", 4, false},
    {ElementType::i64, "long", 8, false},  {ElementType::u64, "ulong", 8, false},
};

const TypeRow& row(ElementType t) {
  for (const TypeRow& r : kTypes)
    if (r.type == t) return r;
  return kTypes[0];
}

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
  f.only_keys({"random", "constant", "range", "file"});
  if (f.value().size() != 1) f.fail("needs exactly one of random, constant, range, file");
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
  } else {
    fill.kind = Fill::Kind::file;
    fill.path = resolve(dir, f.child("file").string());
    if (!fs::exists(fill.path)) f.child("file").fail("no file " + fill.path);
  }
  return fill;
}

BufferDecl read_buffer(const Field& f, const std::string& dir) {
  f.only_keys({"name", "index", "type", "count", "fill", "output", "written", "finite"});
  BufferDecl b;
  b.index = f.at("index").binding_index();
  b.name = f.has("name") ? f.child("name").string() : "";  // "": the kernel argument's name
  b.type = f.at("type").element_type();
  b.count = f.at("count").expression();
  if (f.has("fill")) b.fill = read_fill(f.child("fill"), dir);
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

BytesDecl read_bytes(const Field& f) {
  f.only_keys({"index", "type", "values", "fields"});
  BytesDecl b;
  b.index = f.at("index").binding_index();
  auto field = [](const Field& v, ElementType type) {
    BytesField out;
    out.type = type;
    if (v.value().is_number() && !v.value().is_number_integer()) out.number = v.number();
    else out.expression = v.expression();
    return out;
  };
  if (f.has("values") == f.has("fields"))
    f.fail("needs \"type\" with \"values\", or \"fields\" (each with type and value)");
  if (f.has("values")) {
    const ElementType type = f.at("type").element_type();
    for (const Field& v : f.child("values").items()) b.fields.push_back(field(v, type));
  } else {
    for (const Field& x : f.child("fields").items()) {
      x.only_keys({"name", "type", "value"});
      b.fields.push_back(field(x.at("value"), x.at("type").element_type()));
    }
  }
  if (b.fields.empty()) f.fail("has no values");
  return b;
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

// Every name an expression reads must be a parameter.
void check_names(const Expression& e, const std::set<std::string>& params, const Field& where) {
  for (const std::string& n : e.names())
    if (!params.contains(n))
      where.fail("expression '" + e.text() + "' reads '" + n + "', which is not a parameter");
}

void check_expressions(const CaseFile& c, const Field& root) {
  std::set<std::string> names;
  for (const auto& p : c.params) names.insert(p.name);
  for (size_t i = 0; i < c.constraints.size(); ++i)
    check_names(c.constraints[i], names, root.child("constraints").item(i));
  const char* grid = c.dispatch.threads ? "threads" : "grid";
  for (const Expression& e : c.dispatch.grid) check_names(e, names, root.child(grid));
  for (const Expression& e : c.dispatch.threadgroup)
    check_names(e, names, root.child("threadgroup"));
  for (size_t i = 0; i < c.buffers.size(); ++i)
    check_names(c.buffers[i].count, names, root.child("buffers").item(i).child("count"));
  for (size_t i = 0; i < c.bytes.size(); ++i)
    for (const BytesField& b : c.bytes[i].fields)
      if (b.expression) check_names(*b.expression, names, root.child("bytes").item(i));
  for (size_t i = 0; i < c.threadgroup_memory.size(); ++i)
    check_names(c.threadgroup_memory[i].bytes, names,
                root.child("threadgroup_memory").item(i).child("bytes"));
  for (const auto& [param, values] : c.equivalent)
    if (!names.contains(param)) root.child("equivalent").fail("'" + param + "' is not a parameter");
  for (size_t i = 0; i < c.sweep.size(); ++i)
    for (const auto& [k, v] : c.sweep[i])
      if (!names.contains(k)) root.child("sweep").item(i).fail("'" + k + "' is not a parameter");
}

void check_unique_indices(const CaseFile& c, const Field& root) {
  std::set<uint32_t> seen;
  auto claim = [&](uint32_t index, const Field& where) {
    if (!seen.insert(index).second)
      where.fail("buffer(" + std::to_string(index) + ") is bound twice");
  };
  for (size_t i = 0; i < c.buffers.size(); ++i)
    claim(c.buffers[i].index, root.child("buffers").item(i).child("index"));
  for (size_t i = 0; i < c.bytes.size(); ++i)
    claim(c.bytes[i].index, root.child("bytes").item(i).child("index"));
  std::set<uint32_t> tg;
  for (size_t i = 0; i < c.threadgroup_memory.size(); ++i)
    if (!tg.insert(c.threadgroup_memory[i].index).second)
      root.child("threadgroup_memory")
          .item(i)
          .fail("threadgroup(" + std::to_string(c.threadgroup_memory[i].index) +
                ") is given twice");
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
  if (root.has("buffers"))
    for (const Field& b : root.child("buffers").items()) c.buffers.push_back(read_buffer(b, c.dir));
  if (root.has("bytes"))
    for (const Field& b : root.child("bytes").items()) c.bytes.push_back(read_bytes(b));
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

std::string_view element_type_name(ElementType t) { return row(t).name; }
size_t element_size(ElementType t) { return row(t).size; }
bool parse_element_type(std::string_view name, ElementType& out) {
  for (const TypeRow& r : kTypes)
    if (name == r.name) {
      out = r.type;
      return true;
    }
  return false;
}

CaseFile read_case_file(const json& j, const std::string& origin) {
  CaseFile c;
  c.origin = origin.empty() ? "(command line)" : origin;
  c.dir = origin.empty() ? "" : fs::path(origin).parent_path().string();
  const Field root(j, "", c.origin);
  root.only_keys({"name", "summary", "source", "kernel", "params", "constraints", "grid", "threads",
                  "threadgroup", "buffers", "bytes", "threadgroup_memory", "equivalent",
                  "compare_schedules", "reference", "tolerance", "sweep", "math_mode"});
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
  check_expressions(c, root);
  check_unique_indices(c, root);
  if (c.sweep.empty()) c.sweep.push_back({});
  c.text = j;
  return c;
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
