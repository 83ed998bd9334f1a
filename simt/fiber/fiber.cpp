#include "simt/fiber/fiber.h"

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
  if (tsan_fiber_ != nullptr) __tsan_destroy_fiber(tsan_fiber_);  // kept from the last use: see abandon
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

void Fiber::resume() {
#if METALSIM_ASAN
  __sanitizer_start_switch_fiber(&asan_caller_fake_stack_, stack_->bottom(), stack_->size());
#endif
#if METALSIM_TSAN
  tsan_caller_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_fiber_, isolated_ ? __tsan_switch_to_fiber_no_sync : 0);
#endif
  ctx::transfer_t back = ctx::jump_fcontext(context_, this);
  context_ = back.fctx;
#if METALSIM_ASAN
  __sanitizer_finish_switch_fiber(asan_caller_fake_stack_, nullptr, nullptr);
#endif
}

void Fiber::suspend() {
  on_return_to_caller(false);
  ctx::transfer_t back = ctx::jump_fcontext(caller_, nullptr);
  caller_ = back.fctx;
  on_enter_from_caller();
}

void Fiber::abandon() {
#if METALSIM_ASAN
  // Frames left on an abandoned stack never returned: clear their redzones, or the next
  // fiber to use the stack trips over them.
  if (stack_ != nullptr && !finished_) ASAN_UNPOISON_MEMORY_REGION(stack_->bottom(), stack_->size());
#endif
#if METALSIM_TSAN
  // An isolated fiber's TSan context outlives it until the Fiber is started again (the next
  // threadgroup): a lane that finished early must still be there when a later lane's access
  // races with its writes, or ThreadSanitizer may reuse its slot and drop the report.
  if (tsan_fiber_ != nullptr && !isolated_) {
    __tsan_destroy_fiber(tsan_fiber_);
    tsan_fiber_ = nullptr;
  }
#endif
  stack_ = nullptr;
  context_ = nullptr;
  finished_ = true;
}

void Fiber::on_enter_from_caller() {
#if METALSIM_ASAN
  __sanitizer_finish_switch_fiber(asan_fiber_fake_stack_, &asan_caller_bottom_, &asan_caller_size_);
#endif
}

void Fiber::on_return_to_caller([[maybe_unused]] bool finishing) {
#if METALSIM_ASAN
  // A finishing fiber passes no fake-stack slot, so ASan releases its fake frames.
  __sanitizer_start_switch_fiber(finishing ? nullptr : &asan_fiber_fake_stack_,
                                 asan_caller_bottom_, asan_caller_size_);
#endif
#if METALSIM_TSAN
  __tsan_switch_to_fiber(tsan_caller_, isolated_ ? __tsan_switch_to_fiber_no_sync : 0);
#endif
}

void Fiber::trampoline(ctx::transfer_t from) {
  auto* self = static_cast<Fiber*>(from.data);
  self->caller_ = from.fctx;
  self->on_enter_from_caller();
  self->entry_(self->arg_);  // must not throw: the engine's entries catch everything
  self->finished_ = true;
  self->on_return_to_caller(true);
  ctx::jump_fcontext(self->caller_, nullptr);
  std::abort();  // a finished fiber is never resumed
}

}  // namespace metalsim::fiber
