// Not fortified: siglongjmp from the alternate signal stack back to the worker's stack is the
// point, and _FORTIFY_SOURCE's longjmp check would reject it.
#undef _FORTIFY_SOURCE
#include "simt/fault/fault.h"

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
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace metalsim::fault {
namespace {

struct TrapState {
  sigjmp_buf* recovery = nullptr;
  volatile sig_atomic_t armed = 0;
  FaultRecord last;
  // A timeout's single-step trace (written by this thread only: its handlers and FaultTrap).
  std::array<const void*, kTimeoutTraceSteps> trace{};
  int trace_count = 0;
  const void* timeout_sp = nullptr;   // the stack pointer when the watchdog's signal arrived
  volatile sig_atomic_t tracing = 0;  // EFLAGS.TF set by on_timeout, not yet cleared
};

thread_local TrapState tls_trap;
std::atomic<bool> debugger_attached{false};
thread_local bool tls_altstack_ready = false;

struct sigaction previous_segv, previous_bus, previous_fpe;

void chain(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = sig == SIGSEGV  ? previous_segv
                                 : sig == SIGFPE ? previous_fpe
                                                 : previous_bus;
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

// Where a signal interrupted the thread: its program counter and stack pointer (null on a
// machine whose signal context is not read here).
struct Interrupted {
  const void* pc = nullptr;
  const void* sp = nullptr;
};
Interrupted interrupted(void* context) {
#if defined(__x86_64__)
  const greg_t* regs = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  return {reinterpret_cast<const void*>(regs[REG_RIP]),
          reinterpret_cast<const void*>(regs[REG_RSP])};
#elif defined(__aarch64__)
  const auto& regs = static_cast<ucontext_t*>(context)->uc_mcontext;
  return {reinterpret_cast<const void*>(regs.pc), reinterpret_cast<const void*>(regs.sp)};
#else
  (void)context;
  return {};
#endif
}

void on_fault(int sig, siginfo_t* info, void* context) {
  if (SignalTracer* tracer = current_signal_tracer();
      tracer != nullptr && sig == SIGSEGV && tracer->on_access_fault(info->si_addr, context))
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
  trap.last.division = sig == SIGFPE;
  trap.last.pc = interrupted(context).pc;
#if defined(__x86_64__)
  // The page-fault error code: bit 1 is set for a write.
  trap.last.write = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 0x2) != 0;
#endif
  capture_callers(trap.last.pc, trap.last.callers);
#if defined(METALSIM_RACECHECK)
  end_process(trap.last);
#endif
  CollectiveScope::leave_all();  // the jump skips their destructors
  siglongjmp(*trap.recovery, 1);
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
  CollectiveScope::leave_all();  // the jump skips their destructors
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
  if (debugger_attached.load(std::memory_order_relaxed) || current_signal_tracer() != nullptr)
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
  const Interrupted at = interrupted(context);
  trap.trace[0] = at.pc;
  trap.timeout_sp = at.sp;
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
  trap.trace[size_t(trap.trace_count++)] = interrupted(context).pc;
  if (trap.trace_count < kTimeoutTraceSteps) return true;
  set_trap_flag(context, false);
  stop_on_timeout(trap);
}

struct sigaction previous_trap;

void on_trap(int sig, siginfo_t* info, void* context) {
  if (on_timeout_step(context)) return;
  if (SignalTracer* tracer = current_signal_tracer();
      tracer != nullptr && tracer->on_single_step(context))
    return;
  // Not ours (a debugger's breakpoint without one attached, ...): what was there before.
  if ((previous_trap.sa_flags & SA_SIGINFO) != 0 && previous_trap.sa_sigaction != nullptr) {
    previous_trap.sa_sigaction(sig, info, context);
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

// Handles `sig` with `handler` on the alternate stack (an overflowed stack has no room left),
// where it may be raised again (SA_NODEFER); the handler it replaces goes to `previous`.
void handle(int sig, void (*handler)(int, siginfo_t*, void*), struct sigaction* previous,
            int more_flags = 0) {
  struct sigaction sa{};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | more_flags;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, previous);
}

std::atomic<bool> handlers_installed{false};

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    handlers_installed = true;
    // Installed after the sanitizers' own handlers: faults inside an armed trap are ours,
    // every other one is passed on (chain()).
    handle(SIGSEGV, &on_fault, &previous_segv);
    handle(SIGBUS, &on_fault, &previous_bus);
    handle(SIGFPE, &on_fault, &previous_fpe);
    // SA_RESTART: a worker past its report's addr2line pipe may still see a late signal.
    handle(FaultTrap::timeout_signal(), &on_timeout, nullptr, SA_RESTART);
    preload_unwinder();  // on_fault reads the faulting frame's callers
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

namespace {

bool is_ours(int sig) {
  struct sigaction current{};
  sigaction(sig, nullptr, &current);
  return (current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &on_fault;
}

}  // namespace

void reinstall_handlers_if_replaced() {
  if (!handlers_installed) return;
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  // One system call in the usual case, not three: where a system call costs microseconds (a
  // gVisor sandbox), three of them were most of an empty command buffer. A program's crash
  // handlers come as a set with SIGSEGV in it (test frameworks', Python's faulthandler), so
  // SIGSEGV still ours means the set is.
  if (is_ours(SIGSEGV)) return;
  for (auto [sig, previous] : {std::pair{SIGSEGV, &previous_segv}, std::pair{SIGBUS, &previous_bus},
                               std::pair{SIGFPE, &previous_fpe}}) {
    if (is_ours(sig)) continue;
    handle(sig, &on_fault, previous);  // the program's handler becomes the one chained to
  }
}

SignalTracer*& current_signal_tracer() {
  thread_local SignalTracer* tracer = nullptr;
  return tracer;
}

void install_single_step_handler() {
  static std::once_flag once;
  std::call_once(once, [] { handle(SIGTRAP, &on_trap, &previous_trap); });
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
const void* FaultTrap::last_timeout_stack_pointer() { return tls_trap.timeout_sp; }

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
  CollectiveScope::leave_all();  // the jump skips their destructors
  siglongjmp(*trap.recovery, 1);
}
int FaultTrap::timeout_signal() { return SIGRTMIN + 5; }

}  // namespace metalsim::fault
