#pragma once
// A fiber: a function running on its own GuardedStack, switched with Boost.Context's fcontext
// (a few nanoseconds, no system call). The core is four operations, as in Boost's detail API:
//   start(stack, entry, arg)  prepares the fiber; nothing runs yet
//   resume()                  from the scheduler: run fibers until one suspends or returns;
//                             gives back the fiber that did
//   suspend()                 from inside the fiber: back to the scheduler
//   switch_to(next)           from inside the fiber: straight to another fiber of the same
//                             scheduler, one jump instead of two (lanes at a barrier)
// Every jump carries the fiber that leaves (nullptr: the scheduler), and the side that arrives
// stores the leaver's context: so any fiber may be resumed by the scheduler or by a sibling.
// A fiber that was never finished can be dropped with abandon(): its stack is simply reused,
// nothing on it is unwound (used after a fault, when unwinding is not safe).
// Sanitizer builds announce every switch to AddressSanitizer and ThreadSanitizer here.
#include <boost/context/detail/fcontext.hpp>

#include <cstdint>

#include "simt/fiber/guarded_stack.h"

// The registers the other fiber may change across a switch, beyond those of SSE: AVX-512's
// upper vector registers and masks, where the compiler may use them.
#if defined(__AVX512F__)
#define METALSIM_AVX512_CLOBBERS                                                                \
  , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25",   \
      "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k1", "k2", "k3", "k4", "k5", "k6", \
      "k7"
#else
#define METALSIM_AVX512_CLOBBERS
#endif

// Code built with -mno-red-zone defines METALSIM_NO_RED_ZONE: nothing lives below %rsp there.
#if defined(METALSIM_NO_RED_ZONE)
#define METALSIM_SKIP_RED_ZONE
#define METALSIM_RESTORE_RED_ZONE
#else
#define METALSIM_SKIP_RED_ZONE "sub $128, %%rsp\n\t"
#define METALSIM_RESTORE_RED_ZONE "add $128, %%rsp\n\t"
#endif

// Builds whose switches are announced to a sanitizer (fiber.cpp); the others switch inline.
#if defined(__SANITIZE_ADDRESS__) || defined(METALSIM_RACECHECK)
#define METALSIM_FIBER_ANNOTATED 1
#else
#define METALSIM_FIBER_ANNOTATED 0
#endif

namespace metalsim::fiber {

class Fiber {
 public:
  using Entry = void (*)(void* arg);

  // An isolated fiber's switches establish no happens-before for ThreadSanitizer (lanes);
  // others synchronise with whoever resumes them (the scheduler).
  void start(GuardedStack* stack, Entry entry, void* arg, bool isolated = false);
  Fiber* resume();
  void suspend();
  void switch_to(Fiber& next) {
#if METALSIM_FIBER_ANNOTATED
    switch_to_annotated(next);
#else
    // Inline, and entering Boost's switch without a call: see jump_without_call.
    next.caller_ = caller_;  // the scheduler stays the one next suspends to
    successor_ = &next;
    store_leaver(jump_without_call(next.context_, this));
#endif
  }
  void abandon();

  bool started() const { return stack_ != nullptr; }
  bool finished() const { return finished_; }
  GuardedStack* stack() const { return stack_; }
  // For ThreadSanitizer reports: "tg(3,0,0) lane(17,0,0)".
  void set_name(const char* name);

 private:
  // Boost's jump_fcontext is entered by a call but leaves by an indirect jump, so each switch
  // leaves one extra entry on the CPU's return-address predictor, and every return the
  // arriving fiber then makes mispredicts (one entry off). Lanes switch at the same call site,
  // so the predictor's entries pushed by the leaving lane are exactly the arriving lane's return
  // addresses: entering jump_fcontext with push + jmp instead of call keeps them aligned, and
  // halves the cost of a barrier. Same function, same saved state; x86-64 only.
  static boost::context::detail::transfer_t jump_without_call(boost::context::detail::fcontext_t to,
                                                              void* data) {
#if defined(__x86_64__)
    boost::context::detail::fcontext_t from;
    void* got;
    // The push writes below %rsp, where the red zone may hold the compiler's data: step over
    // it, unless this code is built with -mno-red-zone (the engine is: see simt/CMakeLists.txt).
    // jump_fcontext preserves the callee-saved registers and the FPU control words; the
    // caller-saved ones are clobbered, as by a call.
    asm volatile(METALSIM_SKIP_RED_ZONE
                 "lea 1f(%%rip), %%rax\n\t"
                 "push %%rax\n\t"
                 "jmp jump_fcontext@PLT\n\t"
                 "1:\n\t" METALSIM_RESTORE_RED_ZONE
                 : "=a"(from), "=d"(got), "+D"(to), "+S"(data)
                 :
                 : "rcx", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3",
                   "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
                   "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)",
                   "st(6)", "st(7)" METALSIM_AVX512_CLOBBERS);
    return {from, got};
#else
    return boost::context::detail::jump_fcontext(to, data);
#endif
  }
  static void trampoline(boost::context::detail::transfer_t from);
  void switch_to_annotated(Fiber& next);
  void arrive(boost::context::detail::transfer_t from);
  // What a jump carries: the fiber that leaves, or, from the scheduler, the fiber it resumes
  // with the low bit set (a fresh fiber's trampoline must learn which Fiber it is).
  static void* from_scheduler(Fiber* to) { return reinterpret_cast<void*>(uintptr_t(to) | 1); }
  static bool is_from_scheduler(const void* data) { return (uintptr_t(data) & 1) != 0; }
  static Fiber* untag(void* data) {
    return reinterpret_cast<Fiber*>(uintptr_t(data) & ~uintptr_t(1));
  }
  // Just after a jump into this fiber: the side that left is the scheduler (suspend() goes
  // back there) or a sibling (it resumes there later).
  void store_leaver(boost::context::detail::transfer_t from) {
    if (is_from_scheduler(from.data)) caller_ = from.fctx;
    else untag(from.data)->context_ = from.fctx;
  }
  void announce_leave(const GuardedStack* to_stack, bool finishing);

  boost::context::detail::fcontext_t context_ = nullptr;  // resume() jumps here
  boost::context::detail::fcontext_t caller_ = nullptr;   // suspend() jumps here (the
                                                          // scheduler; handed on by switch_to)
  Fiber* successor_ = nullptr;                            // the fiber switch_to last jumped to
  Entry entry_ = nullptr;
  void* arg_ = nullptr;
  GuardedStack* stack_ = nullptr;
  bool finished_ = false;
  bool isolated_ = false;
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer: the fake stacks and the caller's stack bounds across a switch.
  void* asan_fiber_fake_stack_ = nullptr;
  const void* asan_caller_bottom_ = nullptr;
  size_t asan_caller_size_ = 0;
#endif
#if defined(METALSIM_RACECHECK)
  // ThreadSanitizer: this fiber and the scheduler's context.
  void* tsan_fiber_ = nullptr;
  void* tsan_previous_fiber_ = nullptr;  // the use before this one's (see abandon)
  void* tsan_caller_ = nullptr;
#endif
};

}  // namespace metalsim::fiber
