// Not fortified: siglongjmp from the alternate signal stack back to the worker's stack is the
// point, and _FORTIFY_SOURCE's longjmp check would reject it.
#undef _FORTIFY_SOURCE
#include "simt/engine/fault.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <array>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
};

thread_local TrapState tls_trap;
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

void on_timeout(int, siginfo_t*, void* context) {
  TrapState& trap = tls_trap;
  if (trap.armed == 0 || trap.recovery == nullptr) return;  // between threadgroups: ignore
  trap.armed = 0;
  trap.last = FaultRecord{};
  trap.last.timeout = true;
#if defined(__x86_64__)
  auto* uc = static_cast<ucontext_t*>(context);
  trap.last.pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
#else
  (void)context;
#endif
#if defined(METALSIM_RACECHECK)
  end_process(trap.last);
#endif
  siglongjmp(*trap.recovery, 1);
}

struct sigaction previous_trap;

void on_trap(int sig, siginfo_t* info, void* context) {
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
    st.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&st.sa_mask);
    sigaction(FaultTrap::timeout_signal(), &st, nullptr);
  });
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
}

FaultTrap::~FaultTrap() {
  tls_trap.armed = 0;
  tls_trap.recovery = nullptr;
}

void FaultTrap::arm() { tls_trap.armed = 1; }
void FaultTrap::disarm() { tls_trap.armed = 0; }
FaultRecord FaultTrap::last_fault() { return tls_trap.last; }

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

// One "function\nfile:line" pair per frame of addr2line -i output, innermost first.
std::vector<check::SourceSite> read_frames(FILE* pipe) {
  std::vector<check::SourceSite> frames;
  std::array<char, 1024> function{}, location{};
  while (std::fgets(function.data(), int(function.size()), pipe) != nullptr &&
         std::fgets(location.data(), int(location.size()), pipe) != nullptr) {
    std::string where(location.data());
    while (!where.empty() && (where.back() == '\n' || where.back() == ' ')) where.pop_back();
    if (size_t paren = where.find(" ("); paren != std::string::npos) where.resize(paren);
    const size_t colon = where.rfind(':');
    if (colon == std::string::npos || where.compare(0, 2, "??") == 0) continue;
    std::string fn(function.data());
    while (!fn.empty() && fn.back() == '\n') fn.pop_back();
    frames.push_back({where.substr(0, colon),
                      uint32_t(std::strtoul(where.c_str() + colon + 1, nullptr, 10)), fn});
  }
  return frames;
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

bool is_metal_file(const std::string& file) {
  return ends_with(file, ".metal") || file == "program_source";
}

}  // namespace

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
  for (check::SourceSite& f : frames) name_program_source(f);
  // A fault inside an inlined MSL library function (max, simd_sum...) is reported at the
  // .metal line that called it: the innermost frame that is in a .metal file.
  for (const check::SourceSite& f : frames)
    if (is_metal_file(f.file)) return f;
  return frames.front();
}

}  // namespace metalsim::engine

namespace metalsim::engine {

check::SourceSite symbolize_trace(const std::vector<const void*>& trace) {
  check::SourceSite first;
  for (const void* pc : trace) {
    check::SourceSite s = symbolize(pc);
    if (!s.known()) continue;
    if (is_metal_file(s.file)) return s;
    if (!first.known()) first = s;
  }
  return first;
}

}  // namespace metalsim::engine
