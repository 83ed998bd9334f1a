// Not fortified: siglongjmp from the alternate signal stack back to the worker's stack is the
// point, and _FORTIFY_SOURCE's longjmp check would reject it.
#undef _FORTIFY_SOURCE
#include "simt/engine/fault.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "simt/engine/uninit_trace.h"

namespace metalsim::engine {
namespace {

struct TrapState {
  sigjmp_buf* recovery = nullptr;
  volatile sig_atomic_t armed = 0;
  FaultRecord last;
  // A timeout's single-step trace (written by this thread only: its handlers and FaultTrap).
  std::array<const void*, kTimeoutTraceSteps> trace{};
  int trace_count = 0;
  volatile sig_atomic_t tracing = 0;  // EFLAGS.TF set by on_timeout, not yet cleared
};

thread_local TrapState tls_trap;
std::atomic<bool> debugger_attached{false};
thread_local bool tls_altstack_ready = false;

struct sigaction previous_segv, previous_bus;

void chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = sig == SIGSEGV ? previous_segv : previous_bus;
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

#if defined(METALSIM_RACECHECK)
// Under ThreadSanitizer a jump out of the lane's fiber is lost (TSan: "can't find longjmp buf")
// and the process would end with status 0: the report is printed and the process ends with 1.
[[noreturn]] void end_process(const FaultRecord& fault) {
  report_unrecoverable_fault(fault);
  std::fflush(nullptr);
  _exit(1);
}
#endif

void on_fault(int sig, siginfo_t* info, void* context) {
  if (UninitTrace* trace = current_uninit_trace();
      trace != nullptr && sig == SIGSEGV && trace->on_access_fault(info->si_addr, context))
    return;
  TrapState& trap = tls_trap;
  if (trap.armed == 0 || trap.recovery == nullptr) {
    chain(sig, info, context);
    return;
  }
  trap.armed = 0;
  trap.tracing = 0;  // the jump leaves the handler's context, and its trap flag, behind
  trap.last = FaultRecord{};
  trap.last.address = info->si_addr;
#if defined(__x86_64__)
  auto* uc = static_cast<ucontext_t*>(context);
  trap.last.pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
  trap.last.write = (uc->uc_mcontext.gregs[REG_ERR] & 0x2) != 0;
#elif defined(__aarch64__)
  auto* uc = static_cast<ucontext_t*>(context);
  trap.last.pc = reinterpret_cast<const void*>(uc->uc_mcontext.pc);
#endif
#if defined(METALSIM_RACECHECK)
  end_process(trap.last);
#endif
  siglongjmp(*trap.recovery, 1);
}

const void* interrupted_pc(void* context) {
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(
      static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<const void*>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return nullptr;
#endif
}

[[noreturn]] void stop_on_timeout(TrapState& trap) {
  trap.armed = 0;
  trap.tracing = 0;
  trap.last = FaultRecord{};
  trap.last.timeout = true;
  trap.last.pc = trap.trace[0];
#if defined(METALSIM_RACECHECK)
  end_process(trap.last);
#endif
  siglongjmp(*trap.recovery, 1);
}

#if defined(__x86_64__)
constexpr long long kTrapFlag = 0x100;  // EFLAGS.TF: a SIGTRAP after each instruction
#endif

void set_trap_flag(void* context, bool on) {
#if defined(__x86_64__)
  auto& flags = static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_EFL];
  flags = on ? flags | kTrapFlag : flags & ~kTrapFlag;
#else
  (void)context;
  (void)on;
#endif
}

// Starts single-stepping the interrupted thread; false where it cannot (not x86-64, a debugger
// attached, ThreadSanitizer's deferred signals, initcheck's tracer single-stepping already).
bool start_timeout_trace(TrapState& trap, void* context) {
#if defined(__x86_64__) && !defined(METALSIM_RACECHECK)
  if (debugger_attached.load(std::memory_order_relaxed) || current_uninit_trace() != nullptr)
    return false;
  trap.tracing = 1;
  set_trap_flag(context, true);
  return true;
#else
  (void)trap;
  (void)context;
  return false;
#endif
}

// The watchdog's signal: the worker, inside kernel code, records where it is and single-steps
// kTimeoutTraceSteps instructions (on_trap) before it stops.
void on_timeout(int, siginfo_t*, void* context) {
  TrapState& trap = tls_trap;
  if (trap.armed == 0 || trap.recovery == nullptr) return;  // between threadgroups: ignore
  if (trap.tracing != 0) return;
  trap.trace[0] = interrupted_pc(context);
  trap.trace_count = 1;
  if (!start_timeout_trace(trap, context)) stop_on_timeout(trap);
}

// One single step of a timeout's trace; false when this thread is not tracing one. A thread
// that left kernel code meanwhile (its threadgroup ended, or an access check's report jumped)
// stops tracing and goes on: the dispatch's stop flag ends the rest.
bool on_timeout_step(void* context) {
  TrapState& trap = tls_trap;
  if (trap.tracing == 0) return false;
  if (trap.armed == 0 || trap.recovery == nullptr) {
    set_trap_flag(context, false);
    trap.tracing = 0;
    return true;
  }
  trap.trace[size_t(trap.trace_count++)] = interrupted_pc(context);
  if (trap.trace_count < kTimeoutTraceSteps) return true;
  set_trap_flag(context, false);
  stop_on_timeout(trap);
}

struct sigaction previous_trap;

void on_trap(int sig, siginfo_t* info, void* context) {
  if (on_timeout_step(context)) return;
  if (UninitTrace* trace = current_uninit_trace();
      trace != nullptr && trace->on_single_step(context))
    return;
  // Not ours (a debugger's breakpoint without one attached, ...): what was there before.
  if ((previous_trap.sa_flags & SA_SIGINFO) != 0 && previous_trap.sa_sigaction != nullptr) {
    previous_trap.sa_sigaction(sig, info, context);
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Installed after the sanitizers' own handlers: faults inside an armed trap are ours,
    // every other one is passed on (chain()).
    struct sigaction sa{};
    sa.sa_sigaction = &on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv);
    sigaction(SIGBUS, &sa, &previous_bus);
    struct sigaction st{};
    st.sa_sigaction = &on_timeout;
    // SA_RESTART: a worker past its report's addr2line pipe may still see a late signal.
    st.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
    sigemptyset(&st.sa_mask);
    sigaction(FaultTrap::timeout_signal(), &st, nullptr);
  });
  install_single_step_handler();  // the watchdog's trace
}

// A stack overflow faults with the stack exhausted: the handler needs a stack of its own.
void install_altstack_for_thread() {
  if (tls_altstack_ready) return;
  tls_altstack_ready = true;
  stack_t ss{};
  ss.ss_size = 64 * 1024;
  // mmap, not malloc: it lives as long as the thread, and leak checkers need not hear of it.
  ss.ss_sp = mmap(nullptr, ss.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ss.ss_flags = 0;
  sigaltstack(&ss, nullptr);
}

}  // namespace

void install_single_step_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa{};
    sa.sa_sigaction = &on_trap;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTRAP, &sa, &previous_trap);
  });
}

FaultTrap::FaultTrap(sigjmp_buf* recovery) {
  install_handlers_once();
  install_altstack_for_thread();
  tls_trap.recovery = recovery;
  tls_trap.trace_count = 0;
}

FaultTrap::~FaultTrap() {
  tls_trap.armed = 0;
  tls_trap.recovery = nullptr;
}

void FaultTrap::arm() { tls_trap.armed = 1; }
void FaultTrap::disarm() { tls_trap.armed = 0; }
FaultRecord FaultTrap::last_fault() { return tls_trap.last; }
std::vector<const void*> FaultTrap::last_timeout_trace() {
  const TrapState& trap = tls_trap;
  return std::vector<const void*>(trap.trace.begin(), trap.trace.begin() + trap.trace_count);
}

void FaultTrap::note_debugger() {
  std::ifstream status("/proc/self/status");
  std::string line;
  bool attached = false;
  while (std::getline(status, line))
    if (line.rfind("TracerPid:", 0) == 0)
      attached = std::strtol(line.c_str() + 10, nullptr, 10) != 0;
  debugger_attached.store(attached, std::memory_order_relaxed);
}

void FaultTrap::raise(const FaultRecord& fault) {
  TrapState& trap = tls_trap;
  if (trap.armed == 0 || trap.recovery == nullptr) return;
  trap.armed = 0;
  trap.last = fault;
#if defined(METALSIM_RACECHECK)
  end_process(fault);
#endif
  siglongjmp(*trap.recovery, 1);
}
int FaultTrap::timeout_signal() { return SIGRTMIN + 5; }

namespace {

std::string to_hex(uintptr_t value) {
  char digits[2 * sizeof value + 1];
  std::snprintf(digits, sizeof digits, "%lx", static_cast<unsigned long>(value));
  return digits;
}

bool ends_with(const std::string& text, std::string_view tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// MSL compiled from a string at run time is "program_source", Metal's name, in the #line
// directives the runtime compiler emits (host/src/runtime_library.cpp); addr2line prefixes that
// relative name with the compile's working directory, which is no file of the user's.
void name_program_source(check::SourceSite& site) {
  if (ends_with(site.file, "/program_source")) site.file = "program_source";
}

// addr2line's "file:line" or "file:line (discriminator N)"; empty for "??:0" or "??:?".
check::SourceSite parse_location(std::string where, const std::string& function) {
  while (!where.empty() && (where.back() == '\n' || where.back() == ' ')) where.pop_back();
  if (size_t paren = where.find(" ("); paren != std::string::npos) where.resize(paren);
  const size_t colon = where.rfind(':');
  if (colon == std::string::npos || where.compare(0, 2, "??") == 0) return {};
  check::SourceSite site{where.substr(0, colon),
                         uint32_t(std::strtoul(where.c_str() + colon + 1, nullptr, 10)), function};
  name_program_source(site);
  return site;
}

// One "function\nfile:line" pair per frame of addr2line -i output, innermost first.
std::vector<check::SourceSite> read_frames(FILE* pipe) {
  std::vector<check::SourceSite> frames;
  std::array<char, 1024> function{}, location{};
  while (std::fgets(function.data(), int(function.size()), pipe) != nullptr &&
         std::fgets(location.data(), int(location.size()), pipe) != nullptr) {
    std::string fn(function.data());
    while (!fn.empty() && fn.back() == '\n') fn.pop_back();
    check::SourceSite site = parse_location(location.data(), fn);
    if (!site.file.empty()) frames.push_back(std::move(site));
  }
  return frames;
}

}  // namespace

bool is_metal_source(const std::string& file) {
  return ends_with(file, ".metal") || file == "program_source";
}

check::SourceSite symbolize(const void* pc) {
  Dl_info info{};
  if (pc == nullptr || dladdr(pc, &info) == 0 || info.dli_fname == nullptr) return {};
  // Position-independent objects are looked up by their offset from the load address.
  const uintptr_t offset =
      reinterpret_cast<uintptr_t>(pc) - reinterpret_cast<uintptr_t>(info.dli_fbase);
  char command[1024];
  std::snprintf(command, sizeof command, "addr2line -i -f -C -e '%s' 0x%lx 2>/dev/null",
                info.dli_fname, static_cast<unsigned long>(offset));
  FILE* pipe = popen(command, "r");
  if (pipe == nullptr) return {};
  std::vector<check::SourceSite> frames = read_frames(pipe);
  pclose(pipe);
  if (frames.empty()) return {};
  // A fault inside an inlined MSL library function (max, simd_sum...) is reported at the
  // .metal line that called it: the innermost frame that is in a .metal file.
  for (const check::SourceSite& f : frames)
    if (is_metal_source(f.file)) return f;
  return frames.front();
}

}  // namespace metalsim::engine

namespace metalsim::engine {

namespace {

struct ObjectOffsets {
  std::string object;
  std::vector<uintptr_t> offsets;
  std::vector<const void*> pcs;  // the same instructions, as addresses
};

// The instructions grouped by the object (executable or shared library) they lie in.
std::vector<ObjectOffsets> group_by_object(const std::vector<const void*>& pcs) {
  std::vector<ObjectOffsets> groups;
  for (const void* pc : pcs) {
    Dl_info info{};
    if (pc == nullptr || dladdr(pc, &info) == 0 || info.dli_fname == nullptr) continue;
    const uintptr_t offset =
        reinterpret_cast<uintptr_t>(pc) - reinterpret_cast<uintptr_t>(info.dli_fbase);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const ObjectOffsets& g) { return g.object == info.dli_fname; });
    if (it == groups.end()) it = groups.insert(groups.end(), {info.dli_fname, {}, {}});
    it->offsets.push_back(offset);
    it->pcs.push_back(pc);
  }
  return groups;
}

// The .metal frame (innermost first) of each address of one addr2line -a -i -f run, in order;
// an empty site for an address without one.
std::vector<check::SourceSite> metal_sites_of(const ObjectOffsets& group) {
  std::string command = "addr2line -a -i -f -C -e '" + group.object + "'";
  for (uintptr_t offset : group.offsets) command += " 0x" + to_hex(offset);
  command += " 2>/dev/null";
  std::vector<check::SourceSite> sites;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return sites;
  std::array<char, 1024> line{};
  bool expect_function = true;
  std::string function;
  while (std::fgets(line.data(), int(line.size()), pipe) != nullptr) {
    std::string text(line.data());
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (expect_function && text.rfind("0x", 0) == 0) {  // the next address's block
      sites.emplace_back();
      continue;
    }
    if (expect_function) {
      function = text;
      expect_function = false;
      continue;
    }
    expect_function = true;
    check::SourceSite site = parse_location(text, function);
    if (!sites.empty() && !sites.back().known() && site.line != 0 && is_metal_source(site.file))
      sites.back() = site;
  }
  pclose(pipe);
  return sites;
}

}  // namespace

namespace {

// The .metal site of each distinct instruction of `pcs` (one addr2line run per object).
std::map<const void*, check::SourceSite> metal_sites(const std::vector<const void*>& pcs) {
  std::vector<const void*> distinct(pcs);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::map<const void*, check::SourceSite> sites;
  for (const ObjectOffsets& group : group_by_object(distinct)) {
    std::vector<check::SourceSite> found = metal_sites_of(group);
    for (size_t i = 0; i < found.size() && i < group.pcs.size(); ++i)
      if (found[i].known()) sites[group.pcs[i]] = std::move(found[i]);
  }
  return sites;
}

// The site that `count` of `keys` counts most often; ties go to the first met.
const check::SourceSite* most_frequent(const std::vector<const check::SourceSite*>& keys) {
  const check::SourceSite* best = nullptr;
  size_t best_count = 0;
  for (const check::SourceSite* s : keys) {
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

check::SourceSite first_metal_site(const std::vector<const void*>& pcs) {
  const std::map<const void*, check::SourceSite> sites = metal_sites(pcs);
  for (const void* pc : pcs)
    if (auto it = sites.find(pc); it != sites.end()) return it->second;
  return {};
}

check::SourceSite symbolize_loop(const std::vector<const void*>& trace) {
  if (trace.empty()) return {};
  const std::map<const void*, check::SourceSite> sites = metal_sites(trace);
  auto site_of = [&](const void* pc) -> const check::SourceSite* {
    auto it = sites.find(pc);
    return it == sites.end() ? nullptr : &it->second;
  };
  std::vector<const check::SourceSite*> back_edges, lines;
  for (size_t i = 0; i < trace.size(); ++i) {
    const check::SourceSite* here = site_of(trace[i]);
    if (here == nullptr) continue;
    lines.push_back(here);
    if (i + 1 < trace.size() && trace[i + 1] < trace[i] && site_of(trace[i + 1]) != nullptr)
      back_edges.push_back(here);
  }
  if (const check::SourceSite* loop = most_frequent(back_edges)) return *loop;
  if (const check::SourceSite* line = most_frequent(lines)) return *line;
  return symbolize(trace.front());
}

check::SourceSite symbolize_trace(const std::vector<const void*>& trace) {
  check::SourceSite first;
  for (const void* pc : trace) {
    check::SourceSite s = symbolize(pc);
    if (!s.known()) continue;
    if (is_metal_source(s.file)) return s;
    if (!first.known()) first = s;
  }
  return first;
}

}  // namespace metalsim::engine
