#pragma once
// The engine's own worker threads (issue 23 item 4): started when first needed and kept between
// dispatches, so that a dispatch pays no fork and join of a thread team. run(n, body) runs
// body(0) .. body(n - 1) on n threads, the caller being worker 0, and returns when every one has
// returned. An idle worker spins for a short while (kSpinNanoseconds: a dispatch that follows
// another at once finds it awake), then sleeps in the kernel (a futex) until
// the next dispatch that needs it; a dispatch wakes only the workers it uses, and makes a system
// call only for those asleep. A job is posted with one store that every spinning worker watches
// (not one read-modify-write per worker, each of which waits for the worker's core to give up
// the cache line: 15 of them in a row at 16 workers).
//
// One dispatch uses the pool at a time: another host thread's dispatch waits for it, and a
// dispatch made from inside a worker (never done by metalsim itself) runs on that worker alone.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace metalsim::engine {

class WorkerPool {
 public:
  // How long an idle worker spins before it sleeps.
  static constexpr uint64_t kSpinNanoseconds = 50'000;

  // The process's pool. Never destroyed: its threads sleep until the process ends, so no
  // worker's thread-local state outlives what it refers to at exit.
  static WorkerPool& shared();

  void run(int workers, const std::function<void(int worker)>& body);
  // Threads started so far (the caller of run not counted).
  size_t threads() const { return slots_.size(); }

 private:
  // A worker's own lines. The first is written by the worker only when it falls asleep or
  // wakes, so a dispatch's read of `sleeping` finds it in its own cache while the worker spins;
  // the second, `done`, once per job.
  struct alignas(64) Slot {
    std::atomic<uint32_t> wake{0};      // the futex the worker sleeps on; bumped to wake it
    std::atomic<uint32_t> sleeping{0};  // 1 while the worker sleeps (or is about to)
    std::thread thread;
    alignas(64) std::atomic<uint32_t> done{0};  // the sequence number of its last job finished
  };

  // The job word: the job's sequence number (high 32 bits) and how many workers it uses (low
  // 32), read together so that a worker never pairs one job's number with another's count.
  static uint64_t job_word(uint32_t sequence, uint32_t workers) {
    return uint64_t(sequence) << 32 | workers;
  }
  void grow(size_t threads);
  void worker_main(Slot& slot, int index);
  uint64_t wait_for_job(Slot& slot, uint64_t seen) const;
  bool all_done(uint32_t sequence, int workers) const;
  void wait_until_done(uint32_t sequence, int workers);

  std::mutex run_mutex_;
  std::vector<std::unique_ptr<Slot>> slots_;  // worker i + 1 is slots_[i]
  alignas(64) std::atomic<uint64_t> job_{0};  // job_word of the latest job
  uint32_t sequence_ = 0;                     // of the latest job (under run_mutex_)
  const std::function<void(int)>* body_ = nullptr;
  // run's caller, while it waits for the workers (wait_until_done): the futex it sleeps on, and
  // 1 while it sleeps (or is about to). Its own line: the workers read the flag once per job.
  alignas(64) std::atomic<uint32_t> caller_wake_{0};
  std::atomic<uint32_t> caller_sleeping_{0};
};

}  // namespace metalsim::engine
