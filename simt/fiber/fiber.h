#pragma once
// A fiber: a function running on its own GuardedStack, switched with Boost.Context's fcontext
// (a few nanoseconds, no system call). The core is three operations, as in Boost's detail API:
//   start(stack, entry, arg)  prepares the fiber; nothing runs yet
//   resume()                  from the scheduler: run the fiber until it suspends or returns
//   suspend()                 from inside the fiber: back to whoever resumed it
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
  void resume();
  void suspend();
  void abandon();

  bool started() const { return stack_ != nullptr; }
  bool finished() const { return finished_; }
  GuardedStack* stack() const { return stack_; }
  // For ThreadSanitizer reports: "tg(3,0,0) lane(17,0,0)".
  void set_name(const char* name);

 private:
  static void trampoline(boost::context::detail::transfer_t from);
  void on_enter_from_caller();
  void on_return_to_caller(bool finishing);

  boost::context::detail::fcontext_t context_ = nullptr;  // resume() jumps here
  boost::context::detail::fcontext_t caller_ = nullptr;   // suspend() jumps here
  Entry entry_ = nullptr;
  void* arg_ = nullptr;
  GuardedStack* stack_ = nullptr;
  bool finished_ = false;
  bool isolated_ = false;
  // AddressSanitizer: the fake stacks and the caller's stack bounds across a switch.
  void* asan_caller_fake_stack_ = nullptr;
  void* asan_fiber_fake_stack_ = nullptr;
  const void* asan_caller_bottom_ = nullptr;
  size_t asan_caller_size_ = 0;
  // ThreadSanitizer: this fiber and the context that resumed it.
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
};

}  // namespace metalsim::fiber
