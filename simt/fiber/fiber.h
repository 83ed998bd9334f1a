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

#include "simt/fiber/guarded_stack.h"

namespace metalsim::fiber {

class Fiber {
 public:
  using Entry = void (*)(void* arg);

  // An isolated fiber's switches establish no happens-before for ThreadSanitizer (lanes);
  // others synchronise with whoever resumes them (the scheduler).
  void start(GuardedStack* stack, Entry entry, void* arg, bool isolated = false);
  Fiber* resume();
  void suspend();
  void switch_to(Fiber& next);
  void abandon();

  bool started() const { return stack_ != nullptr; }
  bool finished() const { return finished_; }
  GuardedStack* stack() const { return stack_; }
  // For ThreadSanitizer reports: "tg(3,0,0) lane(17,0,0)".
  void set_name(const char* name);

 private:
  static void trampoline(boost::context::detail::transfer_t from);
  void arrive(boost::context::detail::transfer_t from);
  void announce_leave(const GuardedStack* to_stack, bool finishing);

  boost::context::detail::fcontext_t context_ = nullptr;  // resume() jumps here
  boost::context::detail::fcontext_t caller_ = nullptr;   // suspend() jumps here (the
                                                          // scheduler; handed on by switch_to)
  Fiber* successor_ = nullptr;  // the fiber switch_to last jumped to
  Entry entry_ = nullptr;
  void* arg_ = nullptr;
  GuardedStack* stack_ = nullptr;
  bool finished_ = false;
  bool isolated_ = false;
  // AddressSanitizer: the fake stacks and the caller's stack bounds across a switch.
  void* asan_fiber_fake_stack_ = nullptr;
  const void* asan_caller_bottom_ = nullptr;
  size_t asan_caller_size_ = 0;
  // ThreadSanitizer: this fiber and the scheduler's context.
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
};

}  // namespace metalsim::fiber
