#pragma once
// The device's timeline of command buffers, private to the host API: what a GPU orders and what
// it may run at the same time.
//
// Execution. A committed command buffer runs on the committing thread unless its queue has an
// earlier one that has not finished (it then runs after it). It stops at an event wait its event
// has not reached (MTL::Event) and goes on when a signal reaches it: another command buffer's
// (encodeSignalEvent) or the host's (SharedEvent::setSignaledValue); the thread that signals runs
// what the signal released. waitUntilCompleted waits for that, and fails a buffer whose wait
// nothing satisfied within the watchdog's time (10 s when METALSIM_WATCHDOG is unset) instead of
// hanging.
//
// Ordering (race.dispatch across queues). With `race` on and two or more command queues, every
// dispatch records its device accesses in one shadow (checks::race::GroupShadow, the "window"),
// which also stands for the concurrent groups within a buffer. Two dispatches of different
// command buffers are ordered when a chain of these leads from the first to the second: a
// command buffer's own order, its queue's order, an event signal after the first that a wait
// before the second was released by, and the host having seen the first's buffer complete
// (waitUntilCompleted, a completed status(), waitUntilSignaledValue) before committing the
// second, or the second committed (or the host's signal it waits for made) by the first's
// completed handler, on the handler's own thread, or committed after the first's completed
// handlers returned (the host may have waited for a flag they set; with `race` on, buffers are
// held, below, so a buffer the host did not wait for has not run and its handlers have not
// returned). Unordered dispatches conflict only on untracked memory (MTLResource.hpp): Metal
// orders the rest by itself.
//
// Held command buffers (issue 28 item 3). A GPU may run the command buffers of two queues in
// either order, or at once, unless something orders them; running each at commit would never show
// a missing event in the results. So under a schedule other than in-order (METALSIM_SCHEDULE,
// `--schedule`), or with `race` on, while two or more queues live, a command buffer that could
// run at once is held instead, and the held ones run later in the schedule's order (reversed,
// shuffled by its seed, or in commit order): when the host waits for anything (waitUntilCompleted,
// a status() not yet final, waitUntilSignaledValue), when a queue is released, when the device
// goes, and at the latest kHoldFor after the first was held (so that host code waiting for a
// completed handler's flag does not hang; that run is on the timeline's own thread). What orders
// them still does: a buffer held behind its queue's earlier one stays behind it, an event wait
// blocks until the signal, and a buffer never runs before an earlier-committed held one that binds
// a tracked resource it binds too (Metal orders those by itself).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "metalsim/Foundation/NSObject.hpp"

namespace metalsim::checks::race {
class GroupShadow;
}

namespace MTL {

class CommandBuffer;
class Event;

namespace timeline {

inline constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();  // after a buffer's last step

// An edge of the order: step `from_step` of buffer `from` (or the host: from == 0) comes before
// every step of buffer `to` after `to_step`.
struct Edge {
  uint64_t from = 0;
  int64_t from_step = kEnd;
  int64_t to_step = -1;
};

// One dispatch recorded in the window.
struct Member {
  uint64_t buffer = 0;  // its command buffer's serial
  int64_t step = 0;     // its step index there
  uint64_t group = 0;   // its concurrent group there
};

}  // namespace timeline

class GpuTimeline {
 public:
  // The longest a held command buffer waits for the host (above).
  static constexpr std::chrono::milliseconds kHoldFor{2};

  GpuTimeline();
  ~GpuTimeline();
  GpuTimeline(const GpuTimeline&) = delete;
  GpuTimeline& operator=(const GpuTimeline&) = delete;

  // A new command queue's number; a queue released (the window needs two live ones).
  uint32_t add_queue();
  void remove_queue();
  // `cb` was committed on its queue: runs it (and what it releases) when its turn comes.
  void submit(CommandBuffer* cb);
  // Blocks until `cb` finished; fails it (and says why) when it waits for an event that nothing
  // signals within `seconds`.
  void wait(CommandBuffer* cb, double seconds);
  // The host has seen `cb` complete (waitUntilCompleted, status()).
  void observe(const CommandBuffer* cb);
  // `cb`'s completed handlers have returned: what the host commits from now on may have learnt
  // of its end from them (a flag, a condition variable), so it counts as seen. Sound only because
  // a buffer is held until the host waits (below): one the host did not wait for has not run.
  void observe_through_handler(const CommandBuffer* cb);
  // The host asked a held or unfinished buffer's status: what is held runs now.
  void poll();
  // While one lives, this thread runs `cb`'s completed handlers: what it commits or signals from
  // the host comes after `cb`. Nested for handlers that commit buffers that finish at once.
  class CompletedHandlers {
   public:
    explicit CompletedHandlers(const CommandBuffer* cb);
    ~CompletedHandlers();
    CompletedHandlers(const CompletedHandlers&) = delete;
    CompletedHandlers& operator=(const CompletedHandlers&) = delete;
  };

  // Events. `reached`: the event's value is at least `value` (for a wait of `cb` at `step`: the
  // order edge from the signal that reached it is kept). `signal` sets the value, from `cb`'s
  // step (nullptr: the host), and releases the buffers waiting for it.
  bool reached(const Event* event, uint64_t value, const CommandBuffer* cb, int64_t step);
  void signal(Event* event, uint64_t value, const CommandBuffer* cb, int64_t step);
  uint64_t value(const Event* event);
  // Blocks until `event` reaches `value`, or (false) `timeout` passes; no timeout: until it does.
  bool wait_for_value(const Event* event, uint64_t value,
                      std::optional<std::chrono::milliseconds> timeout);

  // The race window: nullptr unless `race` is on and the device has two queues (or the window
  // is full until the device is idle). A group of steps run in it holds `window_lock()`; its
  // steps [first_step, end_step) are members `first + k - first_step` (reserve_members' `first`),
  // in encoding order.
  metalsim::checks::race::GroupShadow* window(bool race_on);
  std::unique_lock<std::mutex> window_lock() { return std::unique_lock(window_mutex_); }
  uint32_t reserve_members(const CommandBuffer* cb, uint64_t group, size_t first_step,
                           size_t end_step);
  // Before member `member` runs: how every other member is ordered with it (GroupShadow).
  void order_member(uint32_t member, std::vector<std::pair<const char*, const char*>> untracked);
  // Before a dispatch runs in the window: the memory of each buffer it binds (contents, the
  // buffer's identity), so that what the window holds of a released buffer's reused memory is
  // forgotten.
  void note_buffers(const std::vector<std::pair<const char*, uint64_t>>& buffers);

 private:
  struct Buffer;  // what the timeline knows of one command buffer (gpu_timeline.cpp)
  Buffer& record_of(const CommandBuffer* cb);
  void drain(std::unique_lock<std::mutex>& lock);
  void finished(std::unique_lock<std::mutex>& lock, CommandBuffer* cb);
  void fail_blocked(std::unique_lock<std::mutex>& lock, CommandBuffer* cb);
  std::map<uint64_t, int64_t> preceding(const timeline::Member& later) const;
  // The innermost buffer of this timeline whose completed handlers this thread runs (0: none).
  uint64_t handler_buffer() const;
  void reset_window_if_idle();
  // Holding (above): whether `cb` is held rather than run; runs every held buffer in the
  // schedule's order; the thread that runs them after kHoldFor.
  bool holds(const CommandBuffer* cb) const;
  void release_held(std::unique_lock<std::mutex>& lock);
  void release_after_a_while();

  std::mutex mutex_;
  std::condition_variable changed_;
  uint32_t queues_ = 0;       // numbers given
  uint32_t live_queues_ = 0;  // not released
  uint64_t clock_ = 0;        // host operations: commits and observations
  uint64_t serials_ = 0;      // the last command buffer's serial (this device's own count)
  std::map<uint64_t, std::unique_ptr<Buffer>> buffers_;    // by serial, in commit order
  std::map<uint32_t, std::deque<CommandBuffer*>> queued_;  // per queue, not finished, in order
  std::deque<CommandBuffer*> ready_;
  std::vector<CommandBuffer*> blocked_;
  // Every committed buffer is retained until it finishes, as a Metal queue retains it: the
  // program may release one it does not wait for, and one held or queued behind another runs
  // later. Released by drain, outside the lock.
  std::map<uint64_t, NS::SharedPtr<CommandBuffer>> unfinished_;
  std::vector<NS::SharedPtr<CommandBuffer>> finished_;
  // Held buffers in commit order (retained in unfinished_), each with the tracked resources it
  // binds (sorted).
  struct Held {
    CommandBuffer* buffer;
    std::vector<const void*> tracked;
  };
  std::vector<Held> held_;
  std::condition_variable held_changed_;
  std::thread releaser_;
  bool stopping_ = false;

  std::mutex window_mutex_;
  std::unique_ptr<metalsim::checks::race::GroupShadow> window_;
  std::vector<timeline::Member> members_;
  std::map<const char*, uint64_t> identities_;  // buffers the window has seen, by contents
};

}  // namespace MTL
