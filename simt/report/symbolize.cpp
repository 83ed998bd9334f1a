#include "simt/report/symbolize.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace metalsim::report {
namespace {

// Every inlined frame of one instruction, innermost first; frames without a file are left out.
using Frames = std::vector<SourceSite>;

std::string to_hex(uintptr_t value) {
  char digits[2 * sizeof value + 1];
  std::snprintf(digits, sizeof digits, "%lx", static_cast<unsigned long>(value));
  return digits;
}

bool ends_with(const std::string& text, std::string_view tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

void trim_line_end(std::string& text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
}

// MSL compiled from a string at run time is "program_source", Metal's name, in the #line
// directives the runtime compiler emits (host/src/runtime_library.cpp); addr2line prefixes that
// relative name with the compile's working directory, which is no file of the user's.
void name_program_source(SourceSite& site) {
  if (ends_with(site.file, "/program_source")) site.file = "program_source";
}

// addr2line's "file:line" or "file:line (discriminator N)"; empty for "??:0" or "??:?".
SourceSite parse_location(std::string where, const std::string& function) {
  trim_line_end(where);
  if (size_t paren = where.find(" ("); paren != std::string::npos) where.resize(paren);
  const size_t colon = where.rfind(':');
  if (colon == std::string::npos || where.compare(0, 2, "??") == 0) return {};
  SourceSite site{where.substr(0, colon),
                  uint32_t(std::strtoul(where.c_str() + colon + 1, nullptr, 10)), function};
  name_program_source(site);
  return site;
}

// One object's instructions, by their offsets from its load address (how addr2line finds the
// instructions of position-independent code).
struct ObjectOffsets {
  std::string object;
  std::vector<uintptr_t> offsets;
};

// The frames of each offset, in order, from one `addr2line -a -i -f` run: each address's block
// starts with the address itself, then a "function" and a "file:line" line per inlined frame.
std::vector<Frames> run_addr2line(const ObjectOffsets& group) {
  std::string command = "addr2line -a -i -f -C -e '" + group.object + "'";
  for (uintptr_t offset : group.offsets) command += " 0x" + to_hex(offset);
  command += " 2>/dev/null";
  std::vector<Frames> frames;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return frames;
  std::array<char, 1024> line{};
  bool expect_function = true;
  std::string function;
  while (std::fgets(line.data(), int(line.size()), pipe) != nullptr) {
    std::string text(line.data());
    trim_line_end(text);
    if (expect_function && text.rfind("0x", 0) == 0) {  // the next address's block
      frames.emplace_back();
      continue;
    }
    if (expect_function) {
      function = text;
      expect_function = false;
      continue;
    }
    expect_function = true;
    SourceSite site = parse_location(text, function);
    if (!frames.empty() && !site.file.empty()) frames.back().push_back(std::move(site));
  }
  pclose(pipe);
  return frames;
}

// Answers already found, by object and offset. An object's path names its contents for the
// life of the process: the runtime compiler names each shared object by a hash of its source.
class FrameCache {
 public:
  // The frames of each of `pcs` (in order); addr2line runs once per object for those not known.
  std::vector<Frames> frames_of(const std::vector<const void*>& pcs) {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<std::string, uintptr_t>> keys = keys_of(pcs);
    look_up_missing(keys);
    std::vector<Frames> frames;
    frames.reserve(keys.size());
    for (const auto& key : keys) {
      auto it = known_.find(key);
      frames.push_back(it == known_.end() ? Frames{} : it->second);
    }
    return frames;
  }

 private:
  // (object, offset) of each pc; an empty object for an address no object holds.
  static std::vector<std::pair<std::string, uintptr_t>> keys_of(
      const std::vector<const void*>& pcs) {
    std::vector<std::pair<std::string, uintptr_t>> keys;
    keys.reserve(pcs.size());
    for (const void* pc : pcs) {
      Dl_info info{};
      if (pc == nullptr || dladdr(pc, &info) == 0 || info.dli_fname == nullptr) {
        keys.emplace_back();
        continue;
      }
      keys.emplace_back(info.dli_fname, reinterpret_cast<uintptr_t>(pc) -
                                            reinterpret_cast<uintptr_t>(info.dli_fbase));
    }
    return keys;
  }

  void look_up_missing(const std::vector<std::pair<std::string, uintptr_t>>& keys) {
    std::vector<ObjectOffsets> groups;
    for (const auto& [object, offset] : keys) {
      if (object.empty() || known_.count({object, offset}) != 0) continue;
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const ObjectOffsets& g) { return g.object == object; });
      if (it == groups.end()) it = groups.insert(groups.end(), {object, {}});
      if (std::find(it->offsets.begin(), it->offsets.end(), offset) == it->offsets.end())
        it->offsets.push_back(offset);
    }
    for (const ObjectOffsets& group : groups) {
      std::vector<Frames> found = run_addr2line(group);
      // A failed addr2line run is remembered as unknown too: it would fail again.
      for (size_t i = 0; i < group.offsets.size(); ++i)
        known_[{group.object, group.offsets[i]}] = i < found.size() ? found[i] : Frames{};
    }
  }

  std::mutex mutex_;
  std::map<std::pair<std::string, uintptr_t>, Frames> known_;
};

FrameCache& frame_cache() {
  static FrameCache cache;
  return cache;
}

const SourceSite* user_frame(const Frames& frames);

// The user's site of each distinct instruction of `pcs` that has one.
std::map<const void*, SourceSite> user_sites(const std::vector<const void*>& pcs) {
  std::vector<const void*> distinct(pcs);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const std::vector<Frames> frames = frame_cache().frames_of(distinct);
  std::map<const void*, SourceSite> sites;
  for (size_t i = 0; i < distinct.size(); ++i)
    if (const SourceSite* site = user_frame(frames[i])) sites[distinct[i]] = *site;
  return sites;
}

// The site that occurs most often among `keys` (compared by file and line); ties go to the
// first met.
const SourceSite* most_frequent(const std::vector<const SourceSite*>& keys) {
  const SourceSite* best = nullptr;
  size_t best_count = 0;
  for (const SourceSite* s : keys) {
    const auto count = size_t(std::count_if(keys.begin(), keys.end(), [&](const auto* o) {
      return o->line == s->line && o->file == s->file;
    }));
    if (count > best_count) {
      best = s;
      best_count = count;
    }
  }
  return best;
}

}  // namespace

bool is_metal_source(const std::string& file) {
  return ends_with(file, ".metal") || file == "program_source";
}

// The source tree's simt/include, or where an installed metalsim keeps them
// (cmake/MetalsimRuntimeCompiler.cmake: include/metalsim/msl).
bool is_library_source(const std::string& file) {
  return file.find("/simt/include/") != std::string::npos ||
         file.find("/metalsim/msl/") != std::string::npos;
}

// metalsim's own C++ outside its MSL headers (the engine, the host runtime), by the source root
// CMake compiled it from: a frame there is never the user's line.
bool is_engine_source(const std::string& file) {
  static const std::string simt = std::string(METALSIM_SOURCE_ROOT) + "/simt/";
  static const std::string host = std::string(METALSIM_SOURCE_ROOT) + "/host/";
  if (is_library_source(file)) return false;
  return file.rfind(simt, 0) == 0 || file.rfind(host, 0) == 0;
}

bool is_user_source(const std::string& file) {
  if (is_metal_source(file)) return true;
  const bool system = file.rfind("/usr/", 0) == 0;  // the C++ library's headers, libm's
  return !file.empty() && !system && !is_library_source(file) && !is_engine_source(file);
}

namespace {

// The innermost frame of the user's source on a known line, or null.
const SourceSite* user_frame(const Frames& frames) {
  for (const SourceSite& f : frames)
    if (f.line != 0 && is_user_source(f.file)) return &f;
  return nullptr;
}

bool all_engine(const Frames& frames) {
  return !frames.empty() && std::all_of(frames.begin(), frames.end(), [](const SourceSite& f) {
    return is_engine_source(f.file);
  });
}

SourceSite site_of_frames(const Frames& frames) {
  if (frames.empty()) return {};
  if (const SourceSite* user = user_frame(frames)) return *user;
  return frames.front();
}

// The user's frame of a report's trace (innermost first, callers after): past metalsim's own
// frames where the report was made (a check's, a collective's combine), the first frame of the
// user's source: a .metal line, or a line of a header the kernel's body lies in (MLX's kernels
// are templates in headers that the .metal file only instantiates). The search ends at the
// engine's frame that called the kernel: beyond it lie the host's frames (a program's C++ that
// committed the command buffer), never the kernel's line.
// `site` is that frame; where it is a header's, `metal_call` is the first .metal frame outside it
// in the same kernel (the .metal line that called the header, directly or not), else null.
struct TraceSites {
  const SourceSite* site = nullptr;
  const SourceSite* metal_call = nullptr;
};

TraceSites user_frame_of_trace(const std::vector<Frames>& frames) {
  TraceSites found;
  bool in_kernel = false;
  for (const Frames& f : frames) {
    const bool engine = all_engine(f);
    if (engine && in_kernel) break;
    in_kernel = in_kernel || !engine;
    for (const SourceSite& frame : f) {
      if (found.site == nullptr) {
        if (frame.line != 0 && is_user_source(frame.file)) found.site = &frame;
        if (found.site != nullptr && is_metal_source(found.site->file)) return found;
      } else if (frame.line != 0 && is_metal_source(frame.file)) {
        found.metal_call = &frame;
        return found;
      }
    }
  }
  return found;
}

}  // namespace

SourceSite symbolize(const void* pc) {
  return site_of_frames(frame_cache().frames_of({pc}).front());
}

UserSite symbolize_user(const std::vector<const void*>& trace, const SourceSite& collective_call) {
  UserSite user;
  if (trace.empty()) return user;
  const std::vector<Frames> frames = frame_cache().frames_of(trace);
  if (const TraceSites sites = user_frame_of_trace(frames); sites.site != nullptr) {
    user.site = *sites.site;
    if (sites.metal_call != nullptr) user.metal_call = *sites.metal_call;
  } else if (collective_call.known()) {
    user.site = collective_call;
  } else {
    auto known =
        std::find_if(frames.begin(), frames.end(), [](const Frames& f) { return !f.empty(); });
    if (known != frames.end()) user.site = known->front();
  }
  const Frames& innermost = frames.front();
  if (!innermost.empty() && is_library_source(innermost.front().file) &&
      is_user_source(user.site.file))
    user.library = innermost.front();
  return user;
}

void name_user_site(Report& r, const std::vector<const void*>& trace) {
  UserSite user = symbolize_user(trace, r.collective_call);
  r.site = std::move(user.site);
  r.library_site = std::move(user.library);
  r.metal_call = std::move(user.metal_call);
}

SourceSite first_user_site(const std::vector<const void*>& pcs) {
  const std::map<const void*, SourceSite> sites = user_sites(pcs);
  for (const void* pc : pcs)
    if (auto it = sites.find(pc); it != sites.end()) return it->second;
  return {};
}

SourceSite symbolize_loop(const std::vector<const void*>& trace) {
  if (trace.empty()) return {};
  const std::map<const void*, SourceSite> sites = user_sites(trace);
  auto site_of = [&](const void* pc) -> const SourceSite* {
    auto it = sites.find(pc);
    return it == sites.end() ? nullptr : &it->second;
  };
  std::vector<const SourceSite*> back_edges, lines;
  for (size_t i = 0; i < trace.size(); ++i) {
    const SourceSite* here = site_of(trace[i]);
    if (here == nullptr) continue;
    lines.push_back(here);
    if (i + 1 < trace.size() && trace[i + 1] < trace[i] && site_of(trace[i + 1]) != nullptr)
      back_edges.push_back(here);
  }
  if (const SourceSite* loop = most_frequent(back_edges)) return *loop;
  if (const SourceSite* line = most_frequent(lines)) return *line;
  return symbolize(trace.front());
}

}  // namespace metalsim::report
