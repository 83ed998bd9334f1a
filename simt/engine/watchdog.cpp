#include "simt/engine/watchdog.h"

#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "simt/fault/fault.h"

namespace metalsim::engine {

using Clock = std::chrono::steady_clock;

// The process's watchdog thread and the dispatches armed now.
class WatchdogThread {
 public:
  // Never destroyed: the thread sleeps until the process ends.
  static WatchdogThread& shared() {
    static WatchdogThread* watchdog = new WatchdogThread;
    return *watchdog;
  }

  void arm(Watchdog& w) {
    std::unique_lock lock(mutex_);
    if (!started_) {
      std::thread([this] { watch(); }).detach();
      started_ = true;
    }
    w.next_ = armed_;
    if (armed_ != nullptr) armed_->prev_ = &w;
    armed_ = &w;
    // The thread sleeps to an earlier or the same deadline: it finds this one when it wakes.
    if (w.deadline_ < sleeping_until_) {
      lock.unlock();
      wake_.notify_one();
    }
  }

  void disarm(Watchdog& w) {
    const std::lock_guard lock(mutex_);
    if (w.prev_ != nullptr) w.prev_->next_ = w.next_;
    else armed_ = w.next_;
    if (w.next_ != nullptr) w.next_->prev_ = w.prev_;
    w.next_ = w.prev_ = nullptr;
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    for (;;) {
      const Clock::time_point now = Clock::now();
      Clock::time_point next = Clock::time_point::max();
      for (Watchdog* w = armed_; w != nullptr; w = w->next_) {
        if (w->deadline_ <= now) fire(*w);
        else if (w->deadline_ < next) next = w->deadline_;
      }
      sleeping_until_ = next;
      if (next == Clock::time_point::max()) wake_.wait(lock);
      else wake_.wait_until(lock, next);
      sleeping_until_ = Clock::time_point::min();  // awake: an arm need not notify
    }
  }

  // Under the mutex: a dispatch's destructor (disarm) waits for it, so its workers are still
  // the dispatch's when they are signalled.
  static void fire(Watchdog& w) {
    if (w.fired_.load()) return;
    w.stop_.store(true);
    w.fired_.store(true);
    fault::FaultTrap::note_debugger();  // here, not per dispatch: only a firing watchdog needs it
    for (int i = 0; i < w.worker_count_; ++i) {
      const pthread_t t = w.workers_[i].load(std::memory_order_acquire);
      if (t != pthread_t{}) pthread_kill(t, fault::FaultTrap::timeout_signal());
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool started_ = false;  // the thread: started by the first arm, never ends
  Watchdog* armed_ = nullptr;
  // The deadline the thread sleeps to; max while none is armed, min while it is awake.
  Clock::time_point sleeping_until_ = Clock::time_point::max();
};

Watchdog::Watchdog(std::atomic<bool>& stop, double seconds, int workers) : stop_(stop) {
  if (seconds <= 0) return;
  deadline_ = Clock::now() +
              std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  worker_count_ = workers;
  workers_ = std::make_unique<std::atomic<pthread_t>[]>(size_t(workers));  // zeroed
  armed_ = true;
  WatchdogThread::shared().arm(*this);
}

void Watchdog::disarm() {
  if (!armed_) return;
  WatchdogThread::shared().disarm(*this);
  armed_ = false;
}

}  // namespace metalsim::engine
