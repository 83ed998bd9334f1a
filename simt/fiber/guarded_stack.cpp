#include "simt/fiber/guarded_stack.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

namespace metalsim::fiber {

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

GuardedStack::GuardedStack(size_t usable_bytes, size_t color) {
  const size_t page = page_size();
  color_ = color % page;
  usable_size_ = round_up(usable_bytes + color_, page);
  mapping_size_ = usable_size_ + page;
  mapping_ = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (mapping_ == MAP_FAILED) throw std::bad_alloc();
  mprotect(mapping_, page, PROT_NONE);  // the guard: lowest page, below the stack's growth
  usable_ = static_cast<char*>(mapping_) + page;
}

GuardedStack::~GuardedStack() { munmap(mapping_, mapping_size_); }

bool GuardedStack::guard_contains(const void* address) const {
  auto* a = static_cast<const char*>(address);
  auto* guard = static_cast<const char*>(mapping_);
  return a >= guard && a < guard + page_size();
}

GuardedStack* StackPool::acquire() {
  if (!free_.empty()) {
    GuardedStack* s = free_.back();
    free_.pop_back();
    return s;
  }
  // Successive stacks start 320 bytes apart within a page (5 cache lines; 64 colours): a
  // barrier touches every lane's stack top, and same-offset tops would evict each other.
  constexpr size_t kColorStep = 320;
  all_.push_back(new GuardedStack(stack_bytes_, (all_.size() * kColorStep) % page_size()));
  return all_.back();
}

void StackPool::release(GuardedStack* stack) {
#if defined(METALSIM_RACECHECK)
  // ThreadSanitizer forgets a range's history only when it is unmapped: a reused stack would
  // make one lane's frames look like another's racing accesses.
  std::erase(all_, stack);
  delete stack;
#else
  free_.push_back(stack);
#endif
}

const GuardedStack* StackPool::guard_owner(const void* address) const {
  for (const GuardedStack* s : all_)
    if (s->guard_contains(address)) return s;
  return nullptr;
}

StackPool::~StackPool() {
  for (GuardedStack* s : all_) delete s;
}

size_t default_stack_bytes() {
  const char* env = std::getenv("METALSIM_STACK_SIZE");
  if (env == nullptr || *env == '\0') return 256 * 1024;
  char* end = nullptr;
  size_t n = std::strtoull(env, &end, 10);
  if (end != nullptr && (*end == 'k' || *end == 'K')) n *= 1024;
  if (end != nullptr && (*end == 'm' || *end == 'M')) n *= 1024 * 1024;
  return n < 16 * 1024 ? 16 * 1024 : n;
}

}  // namespace metalsim::fiber
