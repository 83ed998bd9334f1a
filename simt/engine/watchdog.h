#pragma once
// The watchdog: when a dispatch runs past its limit it sets the dispatch's stop flag and sends
// the timeout signal to every worker still running one of its threadgroups (fault.h's trap turns
// that into a watchdog.timeout report naming the thread).
//
// One thread for the whole process, started by the first dispatch with a limit and kept (it
// sleeps when nothing is armed): a dispatch arms and disarms its limit under a mutex, without
// starting and joining a thread of its own (which cost tens of microseconds per dispatch), and
// wakes the watchdog's thread only when its deadline comes before the one that thread sleeps
// to. Several dispatches may be armed at once (a one-worker dispatch does not take the worker
// pool, so two host threads may each run one).
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace metalsim::engine {

class Watchdog {
 public:
  // Arms a limit of `seconds` for the dispatch whose stop flag is `stop`, run by `workers`
  // workers; `seconds` <= 0: no limit (nothing is armed).
  Watchdog(std::atomic<bool>& stop, double seconds, int workers);
  ~Watchdog() { disarm(); }
  // The watchdog no longer touches this dispatch once this returns.
  void disarm();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  bool armed() const { return armed_; }
  // The calling thread runs worker `index` of the dispatch: it receives the timeout signal. A
  // store of its own per worker, no lock.
  void add_worker(int index) { workers_[index].store(pthread_self(), std::memory_order_release); }
  // True when time ran out: a worker then stops its threadgroup (a watchdog.timeout report) or,
  // between threadgroups, skips the rest without a report of its own.
  bool fired() const { return fired_.load(); }

 private:
  friend class WatchdogThread;
  std::atomic<bool>& stop_;
  std::chrono::steady_clock::time_point deadline_;
  int worker_count_ = 0;
  std::unique_ptr<std::atomic<pthread_t>[]> workers_;  // 0: that worker has not started yet
  std::atomic<bool> fired_{false};
  bool armed_ = false;
  Watchdog* next_ = nullptr;  // the armed list (WatchdogThread)
  Watchdog* prev_ = nullptr;
};

}  // namespace metalsim::engine
