// The layer test (CTest `layers`; docs/architecture.md draws the house it enforces). It reads
// every source file of the tree and fails, naming the files, when
//  1. a file includes a header of a folder that is not below its own in kLayers (a folder may
//     include itself; two folders on one layer include neither the other);
//  2. a public host header (host/include) includes an engine, checks or fiber header;
//  3. a benchmark includes anything of tests;
//  4. inside one folder, more than two units (a header and its .cpp) include each other in a
//     cycle: such a knot is one part that the folder's names pretend are several;
//  5. a header declares its names in a namespace other than its folder's (kNamespaces):
//     namespaces follow folders. Blocks of forward declarations of another folder's names are
//     allowed; a .cpp may open the namespace of the header it implements.
// Usage: layer_check <metalsim checkout>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Layer {
  const char* folder;
  int rank;
};

// Bottom to top. The longest matching folder names a file's layer; kernels/<family> are one
// layer, above the specs and formats they use.
constexpr Layer kLayers[] = {
    {"simt/fiber", 0},      {"simt/base", 0},       {"simt/report", 1},     {"simt/abi", 2},
    {"simt/fault", 2},      {"simt/checks", 3},     {"simt/engine", 4},     {"simt/include", 5},
    {"simt/lanes", 5},      {"simt/instrument", 5}, {"simt/front", 6},      {"host/include", 7},
    {"host/src", 8},        {"host/python", 9},     {"kernels/formats", 9}, {"kernels/spec", 10},
    {"kernels", 11},        {"host/model", 12},     {"host/cli", 13},       {"bench/baseline", 13},
    {"host/libfuzzer", 14}, {"tests", 14},          {"bench", 14},          {"examples", 14},
};

// The namespace of each folder's names (its headers'); a nested namespace inside is allowed.
// kernels/<family> declares in metalsim::kernels::<family>.
struct FolderNamespace {
  const char* folder;
  const char* name;
};
constexpr FolderNamespace kNamespaces[] = {
    {"simt/fiber", "metalsim::fiber"},
    {"simt/base", "metalsim"},
    {"simt/report", "metalsim::report"},
    {"simt/abi", "metalsim::abi"},
    {"simt/fault", "metalsim::fault"},
    {"simt/checks", "metalsim::checks"},
    {"simt/engine", "metalsim::engine"},
    {"simt/lanes", "metalsim::lanes"},
    {"simt/instrument", "metalsim::instrument"},
    {"simt/front", "metalsim::front"},
    {"host/src", "metalsim::host"},
    {"host/python", "metalsim::python"},
    {"kernels/spec", "metalsim::spec"},
    {"host/model", "metalsim::model"},
    {"host/cli", "metalsim::cli"},
    {"bench/baseline", "metalsim::baseline"},
};

// A second namespace a folder may declare names in, and why.
struct ExtraNamespace {
  const char* folder;
  const char* name;
};
constexpr ExtraNamespace kExtraNamespaces[] = {
    // The helpers the front's generated code calls (generated_code.h): not metalsim::engine, so
    // that the lane-loop pass, which takes every engine function as one that never reaches a
    // sync point, inlines them into the lane body like the kernel's own code.
    {"simt/engine", "metalsim::generated"},
};

bool extra_namespace(const std::string& folder, const std::string& name) {
  for (const ExtraNamespace& e : kExtraNamespaces)
    if (folder == e.folder && name == e.name) return true;
  return false;
}

std::string expected_namespace(const std::string& folder) {
  for (const FolderNamespace& n : kNamespaces)
    if (folder == n.folder) return n.name;
  if (folder.rfind("kernels/", 0) == 0) return "metalsim::kernels::" + folder.substr(8);
  return "";
}

// `namespace metalsim... {` at the start of a line: the name, else "".
std::string opened_namespace(const std::string& line) {
  if (line.rfind("namespace metalsim", 0) != 0) return "";
  const size_t end = line.find(" {");
  return end == std::string::npos ? "" : line.substr(10, end - 10);
}

// A line a block of forward declarations may hold: `class X;`, `struct X;`, a using-declaration
// that brings the folder's own names into another namespace (`using spec::Params;`), a comment,
// nothing.
bool forward_declaration(const std::string& line) {
  const size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line.compare(i, 2, "//") == 0) return true;
  if (line.compare(i, 6, "using ") == 0 && line.find('=') == std::string::npos)
    return line.find(';') != std::string::npos;
  const bool type = line.compare(i, 6, "class ") == 0 || line.compare(i, 7, "struct ") == 0;
  const size_t semicolon = line.find(';');
  return type && semicolon != std::string::npos && line.find('{') == std::string::npos;
}

struct Placement {
  std::string folder;  // the kLayers entry, or for kernels/<family> the family's folder
  int rank;
};

std::optional<Placement> place(const std::string& path) {
  const Layer* best = nullptr;
  for (const Layer& l : kLayers) {
    const std::string prefix = std::string(l.folder) + "/";
    if (path.compare(0, prefix.size(), prefix) == 0 &&
        (best == nullptr || std::string(l.folder).size() > std::string(best->folder).size()))
      best = &l;
  }
  if (best == nullptr) return std::nullopt;
  std::string folder = best->folder;
  if (folder == "kernels") folder = path.substr(0, path.find('/', folder.size() + 1));
  return Placement{folder, best->rank};
}

// The checkout-relative file an include names, or "" when it is not metalsim's.
std::string included_path(const std::string& name) {
  for (const char* top : {"simt/", "host/", "kernels/", "tests/", "bench/", "examples/"})
    if (name.rfind(top, 0) == 0) return name;
  if (name.rfind("metalsim/", 0) == 0) return "host/include/" + name;
  if (name.rfind("support/", 0) == 0) return "tests/" + name;
  return "";
}

bool is_source(const fs::path& p) {
  static const std::set<std::string> extensions = {".h", ".hpp", ".cpp", ".cc", ".metal"};
  if (extensions.count(p.extension().string()) != 0) return true;
  const std::string name = p.filename().string();
  return p.extension().empty() && name.rfind("metal_", 0) == 0;  // <metal_stdlib> ...
}

// `#include "name"` (spaces allowed around '#'), else "". No std::regex: its matcher recurses
// per character and overflows the stack on the long lines of generated tables.
std::string quoted_include(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return "";
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return "";
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || line[i] != '"') return "";
  const size_t end = line.find('"', i + 1);
  return end == std::string::npos ? "" : line.substr(i + 1, end - i - 1);
}

std::vector<std::string> includes_of(const fs::path& file) {
  std::vector<std::string> found;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (std::string name = quoted_include(line); !name.empty()) found.push_back(name);
  return found;
}

// A header and its .cpp are one unit: "simt/engine/dispatch".
std::string unit_of(const std::string& path) {
  const fs::path p(path);
  return (p.parent_path() / p.stem()).string();
}

using Graph = std::map<std::string, std::set<std::string>>;

// Tarjan's strongly connected components of `graph`, those of more than `larger_than` units.
class Knots {
 public:
  Knots(const Graph& graph, size_t larger_than) : graph_(graph), larger_than_(larger_than) {
    for (const auto& [unit, _] : graph_)
      if (index_.count(unit) == 0) visit(unit);
  }
  const std::vector<std::vector<std::string>>& found() const { return found_; }

 private:
  void visit(const std::string& unit) {
    index_[unit] = low_[unit] = next_++;
    stack_.push_back(unit);
    on_stack_.insert(unit);
    const auto edges = graph_.find(unit);
    if (edges != graph_.end()) {
      for (const std::string& to : edges->second) {
        if (index_.count(to) == 0) {
          visit(to);
          low_[unit] = std::min(low_[unit], low_[to]);
        } else if (on_stack_.count(to) != 0) {
          low_[unit] = std::min(low_[unit], index_[to]);
        }
      }
    }
    if (low_[unit] != index_[unit]) return;
    std::vector<std::string> component;
    std::string member;
    do {
      member = stack_.back();
      stack_.pop_back();
      on_stack_.erase(member);
      component.push_back(member);
    } while (member != unit);
    if (component.size() > larger_than_) {
      std::sort(component.begin(), component.end());
      found_.push_back(component);
    }
  }

  const Graph& graph_;
  size_t larger_than_;
  std::map<std::string, int> index_, low_;
  std::vector<std::string> stack_;
  std::set<std::string> on_stack_;
  int next_ = 0;
  std::vector<std::vector<std::string>> found_;
};

class LayerCheck {
 public:
  explicit LayerCheck(fs::path root) : root_(std::move(root)) {}

  int run() {
    for (const char* top : {"simt", "host", "kernels", "tests", "bench", "examples"})
      if (fs::exists(root_ / top))
        for (const auto& entry : fs::recursive_directory_iterator(root_ / top))
          if (entry.is_regular_file() && is_source(entry.path()))
            check_file(fs::relative(entry.path(), root_).generic_string());
    check_knots();
    for (const std::string& v : violations_) std::cerr << "  " << v << "\n";
    if (!violations_.empty()) {
      std::cerr << violations_.size() << " layering violations (docs/architecture.md)\n";
      return 1;
    }
    std::cout << "layers: " << files_ << " files, every include goes down a layer, no knot\n";
    return 0;
  }

 private:
  void check_file(const std::string& file) {
    const std::optional<Placement> from = place(file);
    if (!from) return;
    ++files_;
    if (fs::path(file).extension() == ".h") check_namespaces(file, from->folder);
    for (const std::string& name : includes_of(root_ / file)) {
      const std::string target = included_path(name);
      if (target.empty() || !fs::exists(root_ / target)) continue;
      check_include(file, *from, name, target);
      if (place(target) && place(target)->folder == from->folder &&
          unit_of(target) != unit_of(file))
        units_in_folder_[from->folder][unit_of(file)].insert(unit_of(target));
    }
  }

  void check_include(const std::string& file, const Placement& from, const std::string& name,
                     const std::string& target) {
    const std::optional<Placement> to = place(target);
    if (!to || to->folder == from.folder) return;
    if (to->rank >= from.rank)
      violations_.push_back(file + " includes " + name + ": " + to->folder + " is not below " +
                            from.folder);
    if (from.folder == "host/include" &&
        (to->folder == "simt/engine" || to->folder == "simt/checks" || to->folder == "simt/fiber"))
      violations_.push_back(file + " includes " + name +
                            ": public host headers include no engine, checks or fiber header");
    if (from.folder == "bench" && to->folder == "tests")
      violations_.push_back(file + " includes " + name + ": benchmarks include nothing of tests");
  }

  // Rule 5: every `namespace metalsim...` block of a header is its folder's (or nested in it),
  // or holds forward declarations only.
  void check_namespaces(const std::string& file, const std::string& folder) {
    const std::string expected = expected_namespace(folder);
    if (expected.empty()) return;
    std::ifstream in(root_ / file);
    std::string line;
    std::string foreign;  // the namespace of the open block that is not the folder's
    bool only_declarations = true;
    while (std::getline(in, line)) {
      if (!foreign.empty()) {
        if (line.rfind("}", 0) == 0) {
          if (!only_declarations)
            violations_.push_back(file + " declares names in namespace " + foreign + ", not " +
                                  expected + " (namespaces follow folders)");
          foreign.clear();
        } else {
          only_declarations = only_declarations && forward_declaration(line);
        }
        continue;
      }
      const std::string name = opened_namespace(line);
      if (name.empty() || name == expected || name.rfind(expected + "::", 0) == 0 ||
          extra_namespace(folder, name))
        continue;
      foreign = name;
      only_declarations = true;
    }
  }

  void check_knots() {
    for (const auto& [folder, graph] : units_in_folder_) {
      const Knots knots(graph, 2);
      for (const std::vector<std::string>& knot : knots.found()) {
        std::string text =
            folder + ": " + std::to_string(knot.size()) + " units include each other in a cycle:";
        for (const std::string& unit : knot) text += " " + unit;
        violations_.push_back(text);
      }
    }
  }

  fs::path root_;
  size_t files_ = 0;
  std::vector<std::string> violations_;
  std::map<std::string, Graph> units_in_folder_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: layer_check <metalsim checkout>\n";
    return 2;
  }
  return LayerCheck(argv[1]).run();
}
