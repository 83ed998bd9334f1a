#pragma once
// Initcheck's locating pass: while a threadgroup runs, its threadgroup memory pages are
// PROT_NONE. Each access faults; the handler notes a read of bytes no one has written (with the
// instruction and the lane), opens the page, and single-steps the instruction (the x86 trap
// flag); the trap handler marks the bytes the instruction changed as written and closes the page
// again. Slow (two signals per access), so it only runs after the cheap differential pass
// (initcheck.cpp) showed that uninitialised threadgroup memory reached device memory.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "simt/fault/fault.h"

namespace metalsim::checks {

struct UninitRead {
  const void* pc = nullptr;
  const void* address = nullptr;
  uint32_t lane = 0;
  fault::CallerTrace callers;  // where a read inside metalsim's headers was called from
};

class UninitTrace final : public fault::SignalTracer {
 public:
  static constexpr size_t kMaxReads = 64;

  // Traces [base, base + size); pages marked in `guard_pages` (by page index) are left alone:
  // faults there are real out-of-bounds accesses.
  void begin(char* base, size_t size, std::vector<uint8_t> guard_pages);
  void end();
  bool active() const { return base_ != nullptr; }

  const UninitRead* reads() const { return reads_; }
  size_t read_count() const { return read_count_; }

  // From the signal handlers (fault.h's SignalTracer); true when the signal was the trace's.
  bool on_access_fault(void* address, void* ucontext) override;
  bool on_single_step(void* ucontext) override;

 private:
  bool seen(const UninitRead& read) const;

  char* base_ = nullptr;
  size_t size_ = 0;
  std::vector<uint8_t> written_;  // one byte per traced byte
  std::vector<uint8_t> guard_pages_;
  char* pending_[2] = {};
  int pending_count_ = 0;
  alignas(64) unsigned char snapshot_[2][4096];
  UninitRead reads_[kMaxReads];
  size_t read_count_ = 0;
};

}  // namespace metalsim::checks
