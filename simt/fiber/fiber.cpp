#include "simt/fiber/fiber.h"

#include <cstdint>
#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define METALSIM_ASAN 1
#endif
// METALSIM_RACECHECK, not __SANITIZE_THREAD__: this file itself is built uninstrumented in
// the tsan preset (see simt/CMakeLists.txt), but its switches must still be announced.
#if defined(METALSIM_RACECHECK)
#include <sanitizer/tsan_interface.h>
#define METALSIM_TSAN 1
#endif

namespace ctx = boost::context::detail;

namespace metalsim::fiber {

void Fiber::start(GuardedStack* stack, Entry entry, void* arg, bool isolated) {
#if METALSIM_TSAN
  // An isolated fiber's TSan context lives on through one more use of this Fiber (see
  // abandon): destroyed here is the one of the use before last.
  if (tsan_previous_fiber_ != nullptr) __tsan_destroy_fiber(tsan_previous_fiber_);
  tsan_previous_fiber_ = tsan_fiber_;
  tsan_fiber_ = nullptr;
#endif
  isolated_ = isolated;
  stack_ = stack;
  entry_ = entry;
  arg_ = arg;
  finished_ = false;
  context_ = ctx::make_fcontext(stack->top(), stack->size(), &Fiber::trampoline);
#if METALSIM_TSAN
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
}

void Fiber::set_name([[maybe_unused]] const char* name) {
#if METALSIM_TSAN
  if (tsan_fiber_ != nullptr) __tsan_set_fiber_name(tsan_fiber_, name);
#endif
}

Fiber* Fiber::resume() {
#if METALSIM_ASAN
  void* scheduler_fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&scheduler_fake_stack, stack_->bottom(), stack_->size());
#endif
#if METALSIM_TSAN
  tsan_caller_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_fiber_, isolated_ ? __tsan_switch_to_fiber_no_sync : 0);
#endif
  ctx::transfer_t back = ctx::jump_fcontext(context_, from_scheduler(this));
  // Back from whichever fiber of this scheduler suspended or finished last.
  auto* leaver = static_cast<Fiber*>(back.data);
  leaver->context_ = back.fctx;
#if METALSIM_ASAN
  __sanitizer_finish_switch_fiber(scheduler_fake_stack, nullptr, nullptr);
#endif
  return leaver;
}

void Fiber::suspend() {
  announce_leave(nullptr, false);
  arrive(ctx::jump_fcontext(caller_, this));
}

// switch_to with the sanitizer announcements (the plain switch is inline in fiber.h).
void Fiber::switch_to_annotated(Fiber& next) {
  next.caller_ = caller_;  // the scheduler stays the one next suspends to
#if METALSIM_ASAN
  next.asan_caller_bottom_ = asan_caller_bottom_;
  next.asan_caller_size_ = asan_caller_size_;
#endif
#if METALSIM_TSAN
  next.tsan_caller_ = tsan_caller_;
#endif
  successor_ = &next;
  announce_leave(next.stack_, false);
#if METALSIM_TSAN
  __tsan_switch_to_fiber(next.tsan_fiber_, next.isolated_ ? __tsan_switch_to_fiber_no_sync : 0);
#endif
  arrive(ctx::jump_fcontext(next.context_, this));
}

void Fiber::abandon() {
#if METALSIM_ASAN
  // Frames left on an abandoned stack never returned: clear their redzones, or the next
  // fiber to use the stack trips over them.
  if (stack_ != nullptr && !finished_)
    ASAN_UNPOISON_MEMORY_REGION(stack_->bottom(), stack_->size());
#endif
#if METALSIM_TSAN
  // An isolated fiber's TSan context outlives it through the next use of the Fiber (the next
  // threadgroup): a lane that finished early must still be there when a later lane's access
  // races with its writes, or ThreadSanitizer may reuse its slot and drop the report; and a
  // lane of the previous threadgroup must be there when the next one's races with it, or the
  // report cannot name the earlier access ("failed to restore the stack" once its trace is
  // recycled, which depends on how much ran in between).
  if (tsan_fiber_ != nullptr && !isolated_) {
    __tsan_destroy_fiber(tsan_fiber_);
    tsan_fiber_ = nullptr;
  }
#endif
  stack_ = nullptr;
  context_ = nullptr;
  finished_ = true;
}

// Just after a jump into this fiber: tell the sanitizers, store the context of the side that left.
void Fiber::arrive(ctx::transfer_t from) {
#if METALSIM_ASAN
  const void* previous_bottom = nullptr;
  size_t previous_size = 0;
  __sanitizer_finish_switch_fiber(asan_fiber_fake_stack_, &previous_bottom, &previous_size);
  if (is_from_scheduler(from.data)) {
    asan_caller_bottom_ = previous_bottom;
    asan_caller_size_ = previous_size;
  }
#endif
  store_leaver(from);
}

// Just before a jump out of this fiber, to `to_stack` (nullptr: the scheduler).
void Fiber::announce_leave([[maybe_unused]] const GuardedStack* to_stack,
                           [[maybe_unused]] bool finishing) {
#if METALSIM_ASAN
  // A finishing fiber passes no fake-stack slot, so ASan releases its fake frames.
  void** fake_stack = finishing ? nullptr : &asan_fiber_fake_stack_;
  if (to_stack == nullptr)
    __sanitizer_start_switch_fiber(fake_stack, asan_caller_bottom_, asan_caller_size_);
  else __sanitizer_start_switch_fiber(fake_stack, to_stack->bottom(), to_stack->size());
#endif
#if METALSIM_TSAN
  if (to_stack == nullptr)
    __tsan_switch_to_fiber(tsan_caller_, isolated_ ? __tsan_switch_to_fiber_no_sync : 0);
#endif
}

void Fiber::trampoline(ctx::transfer_t from) {
  Fiber* self = is_from_scheduler(from.data) ? untag(from.data) : untag(from.data)->successor_;
  self->arrive(from);
  self->entry_(self->arg_);  // must not throw: the engine's entries catch everything
  self->finished_ = true;
  self->announce_leave(nullptr, true);
  ctx::jump_fcontext(self->caller_, self);
  std::abort();  // a finished fiber is never resumed
}

}  // namespace metalsim::fiber
