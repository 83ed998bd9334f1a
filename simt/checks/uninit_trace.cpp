#include "simt/checks/uninit_trace.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <cstring>

#include "simt/checks/running_threadgroup.h"
#include "simt/report/sync_site.h"

namespace metalsim::checks {
namespace {

constexpr size_t kPage = 4096;
constexpr long long kTrapFlag = 0x100;

char* page_of(void* address) {
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(address) & ~uintptr_t(kPage - 1));
}

void set_trap_flag(void* ucontext, bool on) {
#if defined(__x86_64__)
  auto* uc = static_cast<ucontext_t*>(ucontext);
  if (on) uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
  else uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
#else
  (void)ucontext;
  (void)on;
#endif
}

const void* pc_of(void* ucontext) {
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(
      static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
#else
  (void)ucontext;
  return nullptr;
#endif
}

bool is_write(void* ucontext) {
#if defined(__x86_64__)
  return (static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_ERR] & 0x2) != 0;
#else
  (void)ucontext;
  return false;
#endif
}

}  // namespace

void UninitTrace::begin(char* base, size_t size, std::vector<uint8_t> guard_pages) {
  base_ = base;
  size_ = size;
  written_.assign(size, 0);
  guard_pages_ = std::move(guard_pages);
  pending_count_ = 0;
  read_count_ = 0;
  for (size_t page = 0; page * kPage < size; ++page)
    if (!guard_pages_[page]) mprotect(base + page * kPage, kPage, PROT_NONE);
}

void UninitTrace::end() {
  for (size_t page = 0; page * kPage < size_; ++page)
    if (!guard_pages_[page]) mprotect(base_ + page * kPage, kPage, PROT_READ | PROT_WRITE);
  base_ = nullptr;
}

// One report per instruction and call: a header's instruction (simdgroup_load's combine) is
// reached from each line that calls it.
bool UninitTrace::seen(const UninitRead& read) const {
  for (size_t i = 0; i < read_count_; ++i) {
    const UninitRead& r = reads_[i];
    if (r.pc == read.pc && r.callers.in_collective == read.callers.in_collective &&
        (!r.callers.in_collective ||
         report::same_site(r.callers.collective, read.callers.collective)) &&
        r.callers.count == read.callers.count &&
        (r.callers.count == 0 || r.callers.returns[0] == read.callers.returns[0]))
      return true;
  }
  return false;
}

bool UninitTrace::on_access_fault(void* address, void* ucontext) {
  char* a = static_cast<char*>(address);
  if (base_ == nullptr || a < base_ || a >= base_ + size_) return false;
  const size_t offset = size_t(a - base_);
  if (guard_pages_[offset / kPage] || pending_count_ == 2) return false;
  if (!is_write(ucontext) && written_[offset] == 0) {
    UninitRead read{pc_of(ucontext), address, 0, {}};
    fault::capture_callers(read.pc, read.callers);
    if (!seen(read) && read_count_ < kMaxReads) {
      RunningThreadgroup* running = RunningThreadgroup::current();
      read.lane = running != nullptr ? running->current_lane() : 0;
      reads_[read_count_++] = read;
    }
  }
  char* page = page_of(address);
  mprotect(page, kPage, PROT_READ | PROT_WRITE);
  std::memcpy(snapshot_[pending_count_], page, kPage);
  pending_[pending_count_++] = page;
  set_trap_flag(ucontext, true);
  return true;
}

bool UninitTrace::on_single_step(void* ucontext) {
  if (base_ == nullptr || pending_count_ == 0) return false;
  for (int p = 0; p < pending_count_; ++p) {
    const char* page = pending_[p];
    const size_t start = size_t(page - base_);
    for (size_t i = 0; i < kPage; ++i)
      if (static_cast<unsigned char>(page[i]) != snapshot_[p][i]) written_[start + i] = 1;
    mprotect(pending_[p], kPage, PROT_NONE);
  }
  pending_count_ = 0;
  set_trap_flag(ucontext, false);
  return true;
}

}  // namespace metalsim::checks
