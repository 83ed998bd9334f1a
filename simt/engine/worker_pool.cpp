#include "simt/engine/worker_pool.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

namespace metalsim::engine {
namespace {

// True on a thread while it runs a job's body, the caller's worker 0 included: a job started
// there runs inline (the pool is held by the job it is part of).
thread_local bool in_job = false;

struct InJob {
  bool was = in_job;
  InJob() { in_job = true; }
  ~InJob() { in_job = was; }
};

uint64_t now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// The kernel's futex on a 32-bit atomic, directly: libstdc++ 12's std::atomic::wait parks
// waiters of different atomics in a shared table, where a notify_one can wake the wrong one
// (seen here: workers asleep with their job posted).
void futex_wait(const std::atomic<uint32_t>& value, uint32_t old) {
  syscall(SYS_futex, reinterpret_cast<const uint32_t*>(&value), FUTEX_WAIT_PRIVATE, old, nullptr,
          nullptr, 0);
}

void futex_wake(std::atomic<uint32_t>& value) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&value), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr,
          0);
}

}  // namespace

WorkerPool& WorkerPool::shared() {
  static WorkerPool* pool = new WorkerPool;  // never destroyed: see the header
  return *pool;
}

void WorkerPool::grow(size_t threads) {
  while (slots_.size() < threads) {
    slots_.push_back(std::make_unique<Slot>());
    Slot& slot = *slots_.back();
    const int index = int(slots_.size());
    slot.thread = std::thread([this, &slot, index] { worker_main(slot, index); });
    slot.thread.detach();
  }
}

// Waits until the job word differs from `seen`: spins on it for kSpinNanoseconds, then sleeps
// on the slot's own futex. The side that posts a job reads `sleeping` after changing the job
// word, both sequentially consistent: either it sees the flag (and wakes the worker) or the
// worker sees the new job before it sleeps.
uint64_t WorkerPool::wait_for_job(Slot& slot, uint64_t seen) const {
  const uint64_t spin_until = now_ns() + kSpinNanoseconds;
  for (uint32_t i = 0;; ++i) {
    const uint64_t job = job_.load(std::memory_order_acquire);
    if (job != seen) return job;
    if ((i & 63) == 63 && now_ns() > spin_until) break;
    cpu_relax();
  }
  for (;;) {
    const uint32_t wake = slot.wake.load(std::memory_order_seq_cst);
    slot.sleeping.store(1, std::memory_order_seq_cst);
    uint64_t job = job_.load(std::memory_order_seq_cst);
    if (job == seen) {
      futex_wait(slot.wake, wake);  // returns at once if woken meanwhile
      job = job_.load(std::memory_order_acquire);
    }
    slot.sleeping.store(0, std::memory_order_relaxed);
    if (job != seen) return job;
  }
}

void WorkerPool::worker_main(Slot& slot, int index) {
  in_job = true;
  uint64_t seen = 0;
  for (;;) {
    seen = wait_for_job(slot, seen);
    // A job that does not use this worker: wait for the next (its count comes with its number).
    if (uint32_t(index) >= uint32_t(seen)) continue;
    (*body_)(index);
    // A store to the worker's own line, not a read-modify-write of one counter that every worker
    // of the job takes in turn. Then the caller's flag, as in wait_for_job: either the caller
    // sees this store or this worker sees it asleep and wakes it.
    slot.done.store(uint32_t(seen >> 32), std::memory_order_seq_cst);
    if (caller_sleeping_.load(std::memory_order_seq_cst) != 0) {
      caller_wake_.fetch_add(1, std::memory_order_seq_cst);
      futex_wake(caller_wake_);
    }
  }
}

// Whether workers 1 .. workers - 1 have finished job `sequence`: independent loads, so the
// misses on the workers' lines overlap.
bool WorkerPool::all_done(uint32_t sequence, int workers) const {
  bool done = true;
  for (int i = 0; i < workers - 1; ++i)
    done &= slots_[i]->done.load(std::memory_order_seq_cst) == sequence;
  return done;
}

// Spins for kSpinNanoseconds, then sleeps until the last worker of the job wakes it.
void WorkerPool::wait_until_done(uint32_t sequence, int workers) {
  const uint64_t spin_until = now_ns() + kSpinNanoseconds;
  for (uint32_t i = 0;; ++i) {
    if (all_done(sequence, workers)) return;
    if ((i & 63) == 63 && now_ns() > spin_until) break;
    cpu_relax();
  }
  for (;;) {
    const uint32_t wake = caller_wake_.load(std::memory_order_seq_cst);
    caller_sleeping_.store(1, std::memory_order_seq_cst);
    const bool done = all_done(sequence, workers);
    if (!done) futex_wait(caller_wake_, wake);  // returns at once if woken meanwhile
    caller_sleeping_.store(0, std::memory_order_relaxed);
    if (done) return;
  }
}

void WorkerPool::run(int workers, const std::function<void(int)>& body) {
  if (workers <= 1 || in_job) {
    body(0);
    return;
  }
  const std::lock_guard<std::mutex> lock(run_mutex_);
  grow(size_t(workers - 1));
  body_ = &body;
  const uint32_t sequence = ++sequence_;
  job_.store(job_word(sequence, uint32_t(workers)), std::memory_order_seq_cst);
  for (int i = 0; i < workers - 1; ++i) {
    Slot& slot = *slots_[i];
    if (slot.sleeping.load(std::memory_order_seq_cst) == 0) continue;
    slot.wake.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(slot.wake);
  }
  try {
    const InJob job;
    body(0);
  } catch (...) {
    wait_until_done(sequence, workers);  // the others still read what `body` refers to
    throw;
  }
  wait_until_done(sequence, workers);
  body_ = nullptr;
}

}  // namespace metalsim::engine
