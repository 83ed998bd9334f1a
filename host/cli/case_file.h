#pragma once
// A case file: how to run one kernel of a user's .metal file with no C++ (docs/cli.md, "Case
// files"): its parameters and their ranges, named values computed from them (`let`), the grid
// and threadgroup size, buffers (type, size, fill, byte offset; aliases that bind a buffer's
// memory again), bytes (structs laid out as MSL lays them out: msl_layout.h), function
// constants, threadgroup memory, include directories, the outputs and what each must satisfy,
// and an optional reference. Sizes and values are expressions (expression.h). CaseFileSpec
// (case_file_spec.h) turns one into a KernelSpec, so `metalsim run` and `metalsim fuzz` run it
// like a built-in kernel.
//
// Reading checks everything that can be checked without the kernel: every field's type, every
// expression's syntax and names, unique binding indices. A problem is a CaseFileError whose
// message names the file and the field ("matmul.json: buffers[2].count: ...").
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/cli/block_fill.h"
#include "host/cli/expression.h"
#include "host/cli/msl_layout.h"
#include "kernels/spec/spec.h"

namespace metalsim::cli {

class CaseFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How an input buffer's elements are made.
struct Fill {
  enum class Kind { random, constant, range, file, blocks };
  Kind kind = Kind::random;
  double low = -1, high = 1;            // random: uniform in [low, high) (integers: [low, high])
  double value = 0;                     // constant
  double start = 0, step = 1;           // range: start + i * step
  std::string path;                     // file: raw bytes, at most the buffer's size
  const BlockLayout* blocks = nullptr;  // blocks: GGML blocks with finite scales (block_fill.h)
};

struct BufferDecl {
  std::string path;  // "buffers[2]", for messages
  std::string name;
  uint32_t index = 0;
  ElementType type = ElementType::f32;
  Expression count;          // elements
  Expression offset;         // bytes: setBuffer's offset, where the kernel's binding begins
  std::optional<Fill> fill;  // inputs (an output with a fill is in place)
  bool output = false;
  bool all_written = true;  // output without fill: every element must be written
  bool finite = true;       // float output: NaN (and, with no reference, inf) fail
};

// `"alias": "src0"`: a buffer's memory bound again at another index (and byte offset), as
// ggml binds src0 again where an optional argument is absent.
struct AliasDecl {
  std::string path;    // "buffers[3]", for messages
  std::string target;  // the buffer's name (resolved once the kernel names unnamed buffers)
  size_t buffer = 0;   // the target's position in CaseFile::buffers (CaseFileSpec resolves it)
  uint32_t index = 0;
  Expression offset;  // bytes into the target
};

// setBytes: a struct laid out as MSL lays it out (msl_layout.h).
struct BytesDecl {
  uint32_t index = 0;
  std::vector<BytesField> fields;
};

// A [[function_constant(N)]] value, by index or by name; its type is the kernel's declaration's
// unless the case file says (case_file_spec.cpp checks the two agree).
struct FunctionConstantDecl {
  std::string path;  // "function_constants[0]", for messages
  std::string name;  // "" when given by index
  int64_t index = -1;
  std::string type;                // "" when not given
  std::vector<Expression> values;  // one per scalar (a vector's lanes)
};

struct ThreadgroupMemoryDecl {
  uint32_t index = 0;
  Expression bytes;
};

struct Dispatch {
  bool threads = false;  // dispatchThreads (grid in threads) rather than dispatchThreadgroups
  std::array<Expression, 3> grid;
  std::array<Expression, 3> threadgroup;
};

struct Reference {
  enum class Kind { none, kernel, function };
  Kind kind = Kind::none;
  std::string kernel;                // another kernel of the file, bound the same way
  std::optional<Dispatch> dispatch;  // its grid; unset: the case's
  std::string library;               // a shared object (resolved against the case file)
  std::string function;              // its extern "C" function (metalsim/case_reference.h)
};

struct CaseFile {
  std::string origin;  // the file's path, or "(command line)": the prefix of every error
  std::string dir;     // relative paths (source, fills, library) are resolved against it
  std::string name;    // the spec's name: "name", else the kernel's
  std::string source;  // the .metal file, resolved
  // Metal's math mode for compiling `source`: "fast" (Metal's default), "relaxed" or "safe".
  std::string math_mode = "fast";
  std::string kernel;
  std::string summary;
  std::vector<spec::ParamDef> params;
  std::vector<std::string> include_dirs;  // for `source`'s includes, resolved
  // Named values of the parameters and of one another, in an order that evaluates each after
  // the names it reads.
  std::vector<std::pair<std::string, Expression>> lets;
  std::vector<Expression> constraints;  // each must evaluate non-zero
  Dispatch dispatch;
  std::vector<BufferDecl> buffers;
  std::vector<AliasDecl> aliases;
  std::vector<BytesDecl> bytes;
  std::vector<FunctionConstantDecl> function_constants;
  std::vector<ThreadgroupMemoryDecl> threadgroup_memory;
  // Parameters whose value must not change the outputs (threadgroup sizes declared equivalent):
  // each case is run again with each other listed value, outputs compared.
  std::map<std::string, std::vector<int64_t>> equivalent;
  bool compare_schedules = true;  // run again reversed and on one worker; outputs must agree
  Reference reference;
  std::optional<spec::Tolerance> tolerance;
  std::vector<spec::Params> sweep;  // default: the fallbacks alone
  // How `metalsim run` names this case file on a command line (before the parameters).
  std::string command;
  // The JSON it was read from (with the command line's options applied): a fuzz corpus entry
  // keeps it, so that --replay loads the same case file again.
  nlohmann::json text;
};

// The names a case's expressions read: its parameters and the case file's `let`s. Throws
// ExpressionError (naming the let) when a let cannot be evaluated.
Scope case_scope(const CaseFile& f, const spec::Params& p);

// `j` read from `origin` (a path, for messages and relative paths; "" for the command line).
CaseFile read_case_file(const nlohmann::json& j, const std::string& origin);
nlohmann::json load_json_file(const std::string& path);

}  // namespace metalsim::cli
