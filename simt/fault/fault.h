#pragma once
// Memory faults and timeouts inside kernels. While a worker runs a threadgroup, a SIGSEGV or
// SIGBUS (a guard page: stack overflow, a buffer's end, a threadgroup region's end) or the
// watchdog's signal jumps back to the runner's recovery point (either mode's runner: fibers or
// lane loops), which files a report (fault_report.h) and abandons the threadgroup; the host
// process goes on. Signals outside an armed trap keep their default meaning.
#include <csetjmp>
#include <cstdint>
#include <string>
#include <vector>

#include "simt/fault/caller_trace.h"
#include "simt/report/report.h"

namespace metalsim::fault {

// Before the watchdog's signal stops a worker inside kernel code, it single-steps it for this
// many instructions (x86-64, no debugger attached): the signal may land on compiler-made code of
// no line or on a line the optimizer moved into the loop, while a thread that never ends runs a
// loop, and the loop's back edge carries the loop statement's line.
inline constexpr int kTimeoutTraceSteps = 512;

struct FaultRecord {
  const void* address = nullptr;  // the faulting data address
  const void* pc = nullptr;       // the faulting instruction
  bool write = false;
  bool timeout = false;  // the watchdog, not a memory fault
  // Found by an access check (access_check.cpp) before the access, not by a signal: `address`
  // is the first byte outside, `pc` inside the instruction that checks.
  bool detected = false;
  // A texture read or write outside the texture (texture_fault.cpp): described from what the
  // MSL header saw, not from the address. `lane`: the lane, when the lane body knew it.
  bool texture = false;
  uint32_t lane = ~0u;
  // SIGFPE: an integer division or remainder by zero (or INT_MIN / -1). Apple GPUs return an
  // undefined value there; the CPU traps, so it is reported at the instruction.
  bool division = false;
  // Where the faulting frame was called from: its report names the user's line when the fault
  // is inside metalsim's MSL headers (caller_trace.h).
  CallerTrace callers;
  // bounds.private (access_check.cpp): the thread array's variable, its length in elements and
  // the element index the access used; `variable` is null for every other fault.
  const char* variable = nullptr;
  uint64_t elements = 0;
  int64_t index = 0;
};

// The tsan preset: ThreadSanitizer cannot follow a jump out of a lane's fiber, so a fault or the
// watchdog inside a kernel ends the process there. This prints its report on stderr
// (race_report.cpp); the process then exits with status 1 (docs/checks.md).
void report_unrecoverable_fault(const FaultRecord& fault);

class FaultTrap {
 public:
  // `recovery`: where a fault jumps (sigsetjmp'ed by the runner, without a signal-mask save).
  explicit FaultTrap(sigjmp_buf* recovery);
  ~FaultTrap();
  void arm();
  void disarm();
  static FaultRecord last_fault();  // of the calling thread
  // The instructions the calling thread ran after the watchdog's signal, the first one the
  // timeout's `pc` (only that one where it cannot single-step). Kept out of FaultRecord: the
  // access checks build one on the kernel's stack.
  static std::vector<const void*> last_timeout_trace();
  // The stack pointer when the watchdog's signal arrived: the frames above it name the kernel
  // line that called the engine code the thread was stopped in (fault_report.cpp).
  static const void* last_timeout_stack_pointer();
  // Whether a debugger is attached, which would take the single steps' traps for its own: read
  // (from /proc) by the watchdog's thread when it fires, before it signals the workers.
  static void note_debugger();
  // An access check found `fault`: recovers as from a signal when a trap is armed on this
  // thread (and does not return), else returns.
  static void raise(const FaultRecord& fault);

  // The signal the watchdog sends to a worker thread that overran.
  static int timeout_signal();
};

// Initcheck's tracer single-steps with SIGTRAP: installed on first use (not under a debugger).
void install_single_step_handler();

// Puts metalsim's SIGSEGV, SIGBUS and SIGFPE handlers back in front where the program installed
// its own after them (a test framework's crash handler at each test case, Python's
// faulthandler): a kernel's fault would otherwise end the process. The program's handler is kept
// as the one faults that are not a kernel's are passed on to. Nothing before the first dispatch
// installed them; the host calls it as each command buffer starts (docs/host_api.md). It reads
// SIGSEGV's handler only, and the three when that one was replaced: a program that replaces
// SIGBUS's or SIGFPE's alone keeps it until it replaces SIGSEGV's too.
void reinstall_handlers_if_replaced();

// A tracer of the calling thread that sees its memory faults and single-step traps before the
// trap does (initcheck's locating pass, uninit_trace.h). Each hook returns true when the signal
// was the tracer's own.
class SignalTracer {
 public:
  virtual bool on_access_fault(void* address, void* ucontext) = 0;
  virtual bool on_single_step(void* ucontext) = 0;

 protected:
  ~SignalTracer() = default;
};

// The calling thread's tracer, or nullptr (set by the runner around a traced threadgroup).
SignalTracer*& current_signal_tracer();

}  // namespace metalsim::fault
