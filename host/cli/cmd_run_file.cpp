// Case files on the command line (case_file_cli.h): the options that build or amend one, loading
// it into a CaseFileSpec, and what `metalsim run` does with the outputs.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <type_traits>

#include "host/cli/block_fill.h"
#include "host/cli/case_file_cli.h"
#include "host/cli/commands.h"

namespace metalsim::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

[[noreturn]] void bad_flag(const std::string& flag, const std::string& text,
                           const std::string& why) {
  throw CaseFileError(flag + " '" + text + "': " + why);
}

// `text` split at `sep` outside parentheses: "ceil_div(N,16),M" -> {"ceil_div(N,16)", "M"}.
std::vector<std::string> split_top_level(const std::string& text, char sep) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char ch : text) {
    if (ch == '(') ++depth;
    if (ch == ')') --depth;
    if (ch == sep && depth == 0) parts.emplace_back();
    else parts.back() += ch;
  }
  return parts;
}

// "name(a,b)" -> {a, b}; false unless `text` is a call of `name`.
bool call_args(const std::string& text, const std::string& name, std::vector<std::string>& args) {
  if (text.rfind(name + "(", 0) != 0 || text.back() != ')') return false;
  args = split_top_level(text.substr(name.size() + 1, text.size() - name.size() - 2), ',');
  return true;
}

// `text`, all of it, read as a T (double or int); else the flag is bad: `text` is not `what`.
template <class T>
T whole_arg(const std::string& flag, const std::string& whole, const std::string& text,
            const char* what) {
  try {
    size_t used = 0;
    T v;
    if constexpr (std::is_same_v<T, int>) v = std::stoi(text, &used);
    else v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {  // not a number, or out of T's range
  }
  bad_flag(flag, whole, "'" + text + "' is not " + what);
}

double number_arg(const std::string& flag, const std::string& whole, const std::string& text) {
  return whole_arg<double>(flag, whole, text, "a number");
}

// An integer, a number or an expression, as JSON.
json value_json(const std::string& text) {
  try {
    size_t used = 0;
    const long long i = std::stoll(text, &used);
    if (used == text.size()) return i;
    const double d = std::stod(text, &used);
    if (used == text.size()) return d;
  } catch (const std::exception&) {
  }
  return text;
}

json size3_json(const std::string& text) {
  json out = json::array();
  for (const std::string& part : split_top_level(text, ',')) out.push_back(value_json(part));
  return out;
}

json fill_json(const std::string& whole, const std::string& text) {
  std::vector<std::string> a;
  auto two = [&](const char* what) {
    if (a.size() != 2) bad_flag("--buffer", whole, std::string(what) + " takes two numbers");
    return json::array({number_arg("--buffer", whole, a[0]), number_arg("--buffer", whole, a[1])});
  };
  if (text == "random" || text == "zero") return text;
  if (call_args(text, "random", a)) return {{"random", two("random")}};
  if (call_args(text, "range", a)) return {{"range", two("range")}};
  if (call_args(text, "const", a) || call_args(text, "constant", a)) {
    if (a.size() != 1) bad_flag("--buffer", whole, "const takes one number");
    return {{"constant", number_arg("--buffer", whole, a[0])}};
  }
  if (call_args(text, "file", a)) return {{"file", fs::absolute(a.at(0)).string()}};
  if (call_args(text, "blocks", a)) {
    if (a.size() != 1)
      bad_flag("--buffer", whole, "blocks takes one format (" + block_layout_names() + ")");
    return {{"blocks", a[0]}};
  }
  bad_flag("--buffer", whole,
           "'" + text +
               "' is not a fill (random, random(lo,hi), zero, const(v), range(start,step), "
               "file(path), blocks(format)) nor out");
}

int index_of(const std::string& flag, const std::string& whole, const std::string& text) {
  return whole_arg<int>(flag, whole, text, "a binding index");
}

// I:TYPE:COUNT[:FILL][:out]
json buffer_json(const std::string& text) {
  const std::vector<std::string> p = split_top_level(text, ':');
  if (p.size() < 3) bad_flag("--buffer", text, "needs INDEX:TYPE:COUNT[:FILL][:out]");
  json b = {
      {"index", index_of("--buffer", text, p[0])}, {"type", p[1]}, {"count", value_json(p[2])}};
  for (size_t i = 3; i < p.size(); ++i) {
    if (p[i] == "out") b["output"] = true;
    else b["fill"] = fill_json(text, p[i]);
  }
  return b;
}

// I:TYPE:V1,V2,...
json bytes_json(const std::string& text) {
  const std::vector<std::string> p = split_top_level(text, ':');
  if (p.size() != 3) bad_flag("--bytes", text, "needs INDEX:TYPE:V1,V2,...");
  json values = json::array();
  for (const std::string& v : split_top_level(p[2], ',')) values.push_back(value_json(v));
  return {{"index", index_of("--bytes", text, p[0])}, {"type", p[1]}, {"values", values}};
}

// I:BYTES
json threadgroup_memory_json(const std::string& text) {
  const std::vector<std::string> p = split_top_level(text, ':');
  if (p.size() != 2) bad_flag("--threadgroup-memory", text, "needs INDEX:BYTES");
  return {{"index", index_of("--threadgroup-memory", text, p[0])}, {"bytes", value_json(p[1])}};
}

// Adds `entry` to the list `key` of `j`, replacing an entry with the same index.
void put_by_index(json& j, const char* key, json entry) {
  json& list = j[key];
  if (!list.is_array()) list = json::array();
  for (json& e : list)
    if (e.is_object() && e.value("index", -1) == entry["index"]) {
      e = std::move(entry);
      return;
    }
  list.push_back(std::move(entry));
}

// The --NAME=VALUE / --NAME VALUE arguments, in order.
std::vector<std::pair<std::string, std::string>> param_args(
    const std::vector<std::string>& extras) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < extras.size(); ++i) {
    if (extras[i].rfind("--", 0) != 0) continue;
    std::string name = extras[i].substr(2), value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < extras.size()) {
      value = extras[++i];
    }
    out.emplace_back(name, value);
  }
  return out;
}

// Quoted for a POSIX shell when it has to be: a repro stays readable.
std::string quoted(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || std::strchr("_./,:=+-", ch) != nullptr;
  });
  return plain ? text : spec::shell_quote(text);
}

// The flags as JSON on top of `j`; the command line that names them (for repro commands).
std::string apply_flags(json& j, const std::string& target, const CaseFileFlags& f,
                        const std::vector<std::string>& extras) {
  std::string command = quoted(target);
  auto note = [&](const std::string& flag, const std::string& value) {
    command += " " + flag + " " + quoted(value);
  };
  if (!f.case_path.empty()) note("--case", f.case_path);
  if (target.ends_with(".metal")) j["source"] = fs::absolute(target).string();
  if (!f.kernel.empty()) {
    j["kernel"] = f.kernel;
    note("--kernel", f.kernel);
  }
  if (!f.grid.empty() || !f.threads.empty()) {
    const bool threads = !f.threads.empty();
    j.erase(threads ? "grid" : "threads");
    j[threads ? "threads" : "grid"] = size3_json(threads ? f.threads : f.grid);
    note(threads ? "--threads" : "--grid", threads ? f.threads : f.grid);
  }
  if (!f.threadgroup.empty()) {
    j["threadgroup"] = size3_json(f.threadgroup);
    note("--threadgroup", f.threadgroup);
  }
  for (const std::string& b : f.buffers) {
    put_by_index(j, "buffers", buffer_json(b));
    note("--buffer", b);
  }
  for (const std::string& b : f.bytes) {
    put_by_index(j, "bytes", bytes_json(b));
    note("--bytes", b);
  }
  for (const std::string& d : f.include_dirs) {
    if (!j["include_dirs"].is_array()) j["include_dirs"] = json::array();
    j["include_dirs"].push_back(fs::absolute(d).lexically_normal().string());
    note("-I", d);
  }
  for (const std::string& t : f.threadgroup_memory) {
    put_by_index(j, "threadgroup_memory", threadgroup_memory_json(t));
    note("--threadgroup-memory", t);
  }
  // With no case file, --NAME=VALUE declares the parameter; a case file declares its own.
  for (const auto& [name, value] : param_args(extras)) {
    if (!f.case_path.empty() || target.ends_with(".json")) break;
    if (j.contains("params") && j["params"].contains(name)) continue;
    const json v = value_json(value);
    if (!v.is_number_integer()) bad_flag("--" + name, value, "a parameter needs an integer");
    j["params"][name] = {{"min", v}, {"max", v}, {"default", v}, {"help", "from the command line"}};
  }
  return command;
}

// Case files loaded in this process, by name; a reload replaces the earlier spec.
std::map<std::string, std::unique_ptr<CaseFileSpec>>& loaded() {
  static std::map<std::string, std::unique_ptr<CaseFileSpec>> specs;
  return specs;
}

// The spec of `file`, kept for the process; throws CaseFileError when a built-in spec has its
// name.
const CaseFileSpec* keep_loaded(CaseFile file) {
  if (const KernelSpec* builtin = spec::SpecRegistry::find(file.name); builtin != nullptr)
    throw CaseFileError(file.origin + ": a built-in kernel spec is named '" + file.name +
                        "'; give the case file a \"name\" of its own");
  auto spec = std::make_unique<CaseFileSpec>(std::move(file));
  const CaseFileSpec* out = spec.get();
  loaded()[out->name()] = std::move(spec);
  return out;
}

}  // namespace

void CaseFileFlags::add_to(CLI::App& sub, bool outputs) {
  sub.add_option("--case", case_path, "a case file (JSON) for FILE.metal");
  sub.add_option("--kernel", kernel, "the kernel of FILE.metal");
  sub.add_option("--grid", grid,
                 "threadgroups per grid, X[,Y[,Z]] (expressions of the parameters)");
  sub.add_option("--threads", threads, "threads per grid (dispatchThreads), X[,Y[,Z]]");
  sub.add_option("--threadgroup", threadgroup, "threads per threadgroup, X[,Y[,Z]]");
  sub.add_option("--buffer", buffers, "INDEX:TYPE:COUNT[:FILL][:out], e.g. 0:float:N*M:random");
  sub.add_option("--bytes", bytes, "INDEX:TYPE:V1,V2,... (setBytes)");
  sub.add_option("--threadgroup-memory", threadgroup_memory, "INDEX:BYTES");
  sub.add_option("-I,--include-dir", include_dirs,
                 "an include directory for the source's #includes (after the case file's)");
  if (!outputs) return;
  sub.add_option("--save", save_dir, "write each output buffer as DIR/NAME.bin");
  sub.add_option("--print", print, "print the first N elements of each output");
}

bool is_case_file_target(const std::string& text) {
  return text.ends_with(".json") || text.ends_with(".metal");
}

const CaseFileSpec* load_case_file_spec(const std::string& target, const CaseFileFlags& flags,
                                        const std::vector<std::string>& extras, std::ostream& err) {
  try {
    const std::string case_path = target.ends_with(".json") ? target : flags.case_path;
    if (target.ends_with(".json") && !flags.case_path.empty())
      throw CaseFileError("--case names a case file, but " + target + " is one already");
    json j = case_path.empty() ? json::object() : load_json_file(case_path);
    const std::string command = apply_flags(j, target, flags, extras);
    CaseFile file = read_case_file(j, case_path);
    file.command = command;
    return keep_loaded(std::move(file));
  } catch (const CaseFileError& e) {
    err << "metalsim: " << e.what() << "\n";
    return nullptr;
  }
}

json case_file_record(const CaseFileSpec& spec) {
  const CaseFile& f = spec.file();
  const bool from_file = f.origin != "(command line)";
  return {{"json", f.text},
          {"origin", from_file ? fs::absolute(f.origin).string() : std::string()},
          {"command", f.command}};
}

const CaseFileSpec* load_case_file_record(const json& record, std::ostream& err) {
  try {
    CaseFile file = read_case_file(record.at("json"), record.at("origin").get<std::string>());
    file.command = record.at("command").get<std::string>();
    return keep_loaded(std::move(file));
  } catch (const CaseFileError& e) {
    err << "metalsim: " << e.what() << "\n";
  } catch (const json::exception& e) {
    err << "metalsim: a corpus entry's \"case_file\": " << e.what() << "\n";
  }
  return nullptr;
}

namespace {

// `patterns` split into the case-file targets, loaded with `flags`, and the rest (registry
// patterns). `ok` false (with a message) when a case file could not be loaded.
std::vector<const KernelSpec*> load_case_file_targets(const std::vector<std::string>& patterns,
                                                      const CaseFileFlags& flags, std::ostream& err,
                                                      bool& ok, std::vector<std::string>& names) {
  std::vector<const KernelSpec*> files;
  ok = true;
  for (const std::string& p : patterns) {
    if (!is_case_file_target(p)) {
      names.push_back(p);
      continue;
    }
    const CaseFileSpec* spec = load_case_file_spec(p, flags, {}, err);
    ok = ok && spec != nullptr;
    if (spec != nullptr) files.push_back(spec);
  }
  return files;
}

}  // namespace

std::vector<const KernelSpec*> select_specs_or_case_files(const std::vector<std::string>& patterns,
                                                          const CaseFileFlags& flags,
                                                          std::ostream& err, bool& ok) {
  std::vector<std::string> names;
  const std::vector<const KernelSpec*> files =
      load_case_file_targets(patterns, flags, err, ok, names);
  std::vector<const KernelSpec*> out = names.empty() ? files : select_specs(names);
  if (!names.empty()) out.insert(out.end(), files.begin(), files.end());
  return out;
}

Selection select_sweep_or_case_files(const std::vector<std::string>& filters,
                                     const CaseFileFlags& flags, std::ostream& err, bool& ok) {
  std::vector<std::string> names;
  const std::vector<const KernelSpec*> files =
      load_case_file_targets(filters, flags, err, ok, names);
  // Only case files named: their sweeps alone (no filter at all would select every spec).
  Selection sel = names.empty() && !filters.empty() ? Selection{} : select_sweep(names);
  for (const KernelSpec* spec : files)
    for (const spec::Params& p : spec->sweep()) sel.cases.push_back({spec, spec->complete(p)});
  return sel;
}

void capture_outputs(const CaseFileSpec& spec, const CaseFileFlags& flags, std::ostream& out) {
  if (flags.save_dir.empty() && flags.print == 0) return;
  spec.on_outputs([&flags, &out](const std::vector<OutputData>& outputs) {
    if (!flags.save_dir.empty()) fs::create_directories(flags.save_dir);
    for (const OutputData& o : outputs) {
      const size_t bytes = o.count * element_size(o.type);
      if (!flags.save_dir.empty()) {
        const fs::path path = fs::path(flags.save_dir) / (o.name + ".bin");
        std::ofstream(path, std::ios::binary)
            .write(static_cast<const char*>(o.data), std::streamsize(bytes));
        out << "saved      " << path.string() << " (" << o.count << " " << element_type_name(o.type)
            << ")\n";
      }
      if (flags.print == 0) continue;
      out << "output     " << o.name << " (" << o.count << " " << element_type_name(o.type) << "):";
      for (size_t i = 0; i < std::min(flags.print, o.count); ++i)
        out << " " << format_element(o, i);
      out << (flags.print < o.count ? " ...\n" : "\n");
    }
  });
}

bool build_case_file_case(const std::string& target, const CaseFileFlags& flags,
                          const std::vector<std::string>& extras, uint64_t seed, Case& out,
                          std::ostream& err) {
  const CaseFileSpec* spec = load_case_file_spec(target, flags, extras, err);
  if (spec == nullptr) return false;
  Params params;
  if (!parse_param_args(*spec, extras, params, err)) return false;
  out.spec = spec;
  out.params = spec->complete(params);
  out.seed = seed;
  std::string why;
  if (!spec->valid(out.params, &why)) {
    err << "metalsim: invalid case " << out.id() << ": " << why << "\n";
    return false;
  }
  return true;
}

}  // namespace metalsim::cli
