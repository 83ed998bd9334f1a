#include "gpu_timeline.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <span>

#include "metalsim/Metal/MTLCommandBuffer.hpp"
#include "metalsim/Metal/MTLEvent.hpp"
#include "simt/checks/race_shadow.h"
#include "simt/engine/schedule.h"

namespace MTL {

using timeline::Edge;
using timeline::kEnd;

namespace {
// Past this many dispatches the window records no more until the device is idle (a miss, never
// a false report).
constexpr size_t kMaxWindowMembers = 1 << 16;
// The signals an event remembers, to order the waits it releases.
constexpr size_t kSignalsKept = 64;

// The command buffers whose completed handlers this thread runs, innermost last.
// The command buffers whose completed handlers this thread is running, innermost last. Trivially
// destructible: a thread's TLS destructors may commit and finish buffers after this thread's
// other thread-locals are gone (MLX's thread-local command encoders do); nesting deeper than
// the array is counted and not recorded.
struct RunningHandlers {
  std::array<const CommandBuffer*, 16> buffers;
  size_t depth;
};
thread_local RunningHandlers running_handlers{};
}  // namespace

struct GpuTimeline::Buffer {
  uint64_t serial = 0;
  uint32_t queue = 0;
  uint64_t queue_previous = 0;  // the buffer committed before it on its queue (0: none)
  uint64_t committed_at = 0;
  uint64_t observed_at = UINT64_MAX;  // when the host saw it complete
  // Its steps the host saw run through a shared event (waitUntilSignaledValue): (step, when).
  std::vector<std::pair<int64_t, uint64_t>> observed_steps;
  std::vector<Edge> waits;               // the signals that released its waits
  std::vector<uint64_t> waits_host_at;   // per entry of `waits`: when it was signalled
  uint64_t committed_by_handler_of = 0;  // committed in that buffer's completed handler
  bool finished = false;
};

GpuTimeline::GpuTimeline() = default;

// What is still held runs before the device goes (a GPU finishes its committed work).
GpuTimeline::~GpuTimeline() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  held_changed_.notify_all();
  lock.unlock();
  if (releaser_.joinable()) releaser_.join();
  lock.lock();
  release_held(lock);
}

uint32_t GpuTimeline::add_queue() {
  std::lock_guard lock(mutex_);
  ++live_queues_;
  return ++queues_;
}

void GpuTimeline::remove_queue() {
  std::unique_lock lock(mutex_);
  --live_queues_;
  release_held(lock);
}

GpuTimeline::Buffer& GpuTimeline::record_of(const CommandBuffer* cb) {
  return *buffers_.at(cb->timeline_serial_);
}

// No buffer left unfinished or unseen: nothing later can race with what the window holds, and
// nothing runs in it (so it goes without its lock).
void GpuTimeline::reset_window_if_idle() {
  const bool idle = std::all_of(buffers_.begin(), buffers_.end(), [](const auto& b) {
    return b.second->finished && b.second->observed_at != UINT64_MAX;
  });
  if (!window_) {  // nothing recorded: what finished matters no more
    std::erase_if(buffers_, [](const auto& b) { return b.second->finished; });
    return;
  }
  if (!idle) return;
  window_.reset();
  members_.clear();
  identities_.clear();
  std::erase_if(buffers_, [](const auto& b) { return b.second->finished; });
}

void GpuTimeline::submit(CommandBuffer* cb) {
  std::unique_lock lock(mutex_);
  reset_window_if_idle();
  auto record = std::make_unique<Buffer>();
  record->serial = cb->timeline_serial_ = ++serials_;
  record->queue = cb->queue_number_;
  record->committed_at = ++clock_;
  record->committed_by_handler_of = handler_buffer();
  std::deque<CommandBuffer*>& queue = queued_[cb->queue_number_];
  for (auto it = buffers_.rbegin(); it != buffers_.rend(); ++it)
    if (it->second->queue == record->queue) {
      record->queue_previous = it->first;
      break;
    }
  buffers_[record->serial] = std::move(record);
  unfinished_[cb->timeline_serial_] = NS::RetainPtr(cb);
  queue.push_back(cb);
  if (queue.size() == 1 && holds(cb)) {
    held_.push_back({cb, cb->tracked_resources()});
    if (!releaser_.joinable()) releaser_ = std::thread([this] { release_after_a_while(); });
    held_changed_.notify_all();
    return;
  }
  if (queue.size() == 1) ready_.push_back(cb);
  drain(lock);
}

bool GpuTimeline::holds(const CommandBuffer* cb) const {
  return live_queues_ >= 2 && !stopping_ &&
         (cb->options_.schedule.kind != metalsim::ScheduleKind::in_order ||
          cb->options_.checks.race);
}

namespace {
bool share_any(const std::vector<const void*>& a, const std::vector<const void*>& b) {
  auto i = a.begin(), j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i == *j) return true;
    if (*i < *j) ++i;
    else ++j;
  }
  return false;
}
}  // namespace

// The held buffers, in the schedule's order (reversed, or shuffled by the first one's seed and
// serial; engine::arrange), each moved behind any earlier-committed one binding a tracked
// resource it binds; then run as the ready ones are.
void GpuTimeline::release_held(std::unique_lock<std::mutex>& lock) {
  if (held_.empty()) return;
  std::vector<Held> held;
  held.swap(held_);
  std::vector<size_t> order(held.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  // In order (held for the race check only): commit order.
  const CommandBuffer& first = *held.front().buffer;
  metalsim::engine::arrange(std::span<size_t>(order), first.options_.schedule,
                            first.timeline_serial_ * 7 + 3);
  std::vector<bool> placed(held.size(), false);
  for (size_t placed_count = 0; placed_count < held.size();) {
    for (size_t k : order) {
      if (placed[k]) continue;
      bool behind = false;  // an earlier unplaced one shares a tracked resource with it
      for (size_t j = 0; j < k && !behind; ++j)
        behind = !placed[j] && share_any(held[j].tracked, held[k].tracked);
      if (behind) continue;
      placed[k] = true;
      ++placed_count;
      ready_.push_back(held[k].buffer);
      break;
    }
  }
  drain(lock);
}

// Runs what is held once it has waited kHoldFor, on this thread, until the timeline goes.
void GpuTimeline::release_after_a_while() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    held_changed_.wait(lock, [&] { return stopping_ || !held_.empty(); });
    if (stopping_) break;
    held_changed_.wait_for(lock, kHoldFor, [&] { return stopping_; });
    release_held(lock);
  }
}

void GpuTimeline::poll() {
  std::unique_lock lock(mutex_);
  release_held(lock);
}

// Runs the ready buffers until none is left; the lock is free while a buffer runs.
void GpuTimeline::drain(std::unique_lock<std::mutex>& lock) {
  while (!ready_.empty()) {
    CommandBuffer* cb = ready_.front();
    ready_.pop_front();
    lock.unlock();
    const bool done = cb->advance();
    lock.lock();
    if (done) finished(lock, cb);
    else blocked_.push_back(cb);
  }
  if (finished_.empty()) return;
  std::vector<NS::SharedPtr<CommandBuffer>> finished;
  finished.swap(finished_);
  lock.unlock();  // a last release destroys the buffer, and what it holds, outside the lock
  finished.clear();
  lock.lock();
}

void GpuTimeline::finished(std::unique_lock<std::mutex>&, CommandBuffer* cb) {
  if (auto it = buffers_.find(cb->timeline_serial_); it != buffers_.end())
    it->second->finished = true;
  if (auto it = unfinished_.find(cb->timeline_serial_); it != unfinished_.end()) {
    finished_.push_back(std::move(it->second));
    unfinished_.erase(it);
  }
  std::deque<CommandBuffer*>& queue = queued_[cb->queue_number_];
  if (!queue.empty() && queue.front() == cb) queue.pop_front();
  if (!queue.empty()) ready_.push_back(queue.front());
  changed_.notify_all();
}

void GpuTimeline::wait(CommandBuffer* cb, double seconds) {
  std::unique_lock lock(mutex_);
  release_held(lock);  // may commit `cb` (from a completed handler)
  // Not committed yet: a buffer still running may commit it from its completed handler (a
  // pipeline that commits the next stage there). Wait while any buffer is unfinished; a buffer
  // nobody will commit returns at once when the timeline is idle (on a GPU it would block).
  const auto limit = std::chrono::duration<double>(seconds);
  if (cb->timeline_serial_ == 0)
    changed_.wait_for(lock, limit,
                      [&] { return cb->timeline_serial_ != 0 || unfinished_.empty(); });
  if (cb->timeline_serial_ == 0) return;  // never committed
  const auto done = [&] {
    auto it = buffers_.find(cb->timeline_serial_);
    return it == buffers_.end() || it->second->finished;
  };
  while (!done()) {
    if (changed_.wait_for(lock, limit, done)) break;
    // Nothing moved for `seconds`: the head of its queue waits for a signal that never came.
    std::deque<CommandBuffer*>& queue = queued_[cb->queue_number_];
    if (queue.empty()) break;
    fail_blocked(lock, queue.front());
    drain(lock);
  }
  lock.unlock();
  observe(cb);
}

void GpuTimeline::fail_blocked(std::unique_lock<std::mutex>& lock, CommandBuffer* cb) {
  auto it = std::find(blocked_.begin(), blocked_.end(), cb);
  if (it == blocked_.end()) return;
  blocked_.erase(it);
  const uint64_t current = cb->waiting_for_->value_;
  // Outside the lock, as a buffer runs: its completed handlers may read status() or commit.
  lock.unlock();
  cb->fail_wait(current);
  lock.lock();
  finished(lock, cb);
}

GpuTimeline::CompletedHandlers::CompletedHandlers(const CommandBuffer* cb) {
  RunningHandlers& r = running_handlers;
  if (r.depth < r.buffers.size()) r.buffers[r.depth] = cb;
  ++r.depth;
}

GpuTimeline::CompletedHandlers::~CompletedHandlers() { --running_handlers.depth; }

uint64_t GpuTimeline::handler_buffer() const {
  const RunningHandlers& r = running_handlers;
  for (size_t i = std::min(r.depth, r.buffers.size()); i-- > 0;)
    if (&r.buffers[i]->timeline() == this) return r.buffers[i]->timeline_serial_;
  return 0;
}

void GpuTimeline::observe_through_handler(const CommandBuffer* cb) {
  std::lock_guard lock(mutex_);
  auto it = buffers_.find(cb->timeline_serial_);
  if (it != buffers_.end() && it->second->observed_at == UINT64_MAX)
    it->second->observed_at = ++clock_;
}

void GpuTimeline::observe(const CommandBuffer* cb) {
  std::lock_guard lock(mutex_);
  auto it = buffers_.find(cb->timeline_serial_);
  if (it != buffers_.end() && it->second->finished && it->second->observed_at == UINT64_MAX)
    it->second->observed_at = ++clock_;
}

uint64_t GpuTimeline::value(const Event* event) {
  std::lock_guard lock(mutex_);
  return event->value_;
}

bool GpuTimeline::reached(const Event* event, uint64_t value, const CommandBuffer* cb,
                          int64_t step) {
  std::lock_guard lock(mutex_);
  if (event->value_ < value) return false;
  // Ordered after the first signal that reached `value` (it released the wait on a GPU).
  const Event::Signal* first = nullptr;
  for (const Event::Signal& s : event->signals_)
    if (s.value >= value && (first == nullptr || s.when < first->when)) first = &s;
  Buffer& record = record_of(cb);
  if (first != nullptr) {
    record.waits.push_back({first->buffer, first->step, step});
    record.waits_host_at.push_back(first->when);
  }
  return true;
}

void GpuTimeline::signal(Event* event, uint64_t value, const CommandBuffer* cb, int64_t step) {
  std::unique_lock lock(mutex_);
  event->value_ = value;
  // The host's signal from a completed handler comes after that buffer's end, as if it signalled.
  const uint64_t from = cb != nullptr ? cb->timeline_serial_ : handler_buffer();
  event->signals_.push_back({from, cb != nullptr ? step : kEnd, value, ++clock_});
  if (event->signals_.size() > kSignalsKept) event->signals_.erase(event->signals_.begin());
  // Release the buffers whose wait is now reached; they run on this thread, in commit order.
  std::vector<CommandBuffer*> released;
  for (CommandBuffer* waiting : blocked_)
    if (waiting->waiting_for_ == event && value >= waiting->waiting_value_)
      released.push_back(waiting);
  std::sort(released.begin(), released.end(), [](const CommandBuffer* a, const CommandBuffer* b) {
    return a->timeline_serial_ < b->timeline_serial_;
  });
  for (CommandBuffer* r : released) {
    std::erase(blocked_, r);
    ready_.push_back(r);
  }
  changed_.notify_all();
  // A command buffer's signal is drained by the thread running it (its drain loop); the host's
  // here.
  if (cb == nullptr) drain(lock);
}

bool GpuTimeline::wait_for_value(const Event* event, uint64_t value,
                                 std::optional<std::chrono::milliseconds> timeout) {
  std::unique_lock lock(mutex_);
  release_held(lock);
  auto reached = [&] { return event->value_ >= value; };
  if (timeout) {
    if (!changed_.wait_for(lock, *timeout, reached)) return false;
  } else {
    changed_.wait(lock, reached);
  }
  // The host now knows the signalling steps ran.
  for (const Event::Signal& s : event->signals_) {
    if (s.buffer == 0 || s.value < value) continue;
    if (auto it = buffers_.find(s.buffer); it != buffers_.end())
      it->second->observed_steps.push_back({s.step, ++clock_});
  }
  return true;
}

metalsim::checks::race::GroupShadow* GpuTimeline::window(bool race_on) {
  if (!race_on) return nullptr;
  std::lock_guard lock(mutex_);
  if (live_queues_ < 2 || members_.size() >= kMaxWindowMembers) return nullptr;
  if (!window_) window_ = std::make_unique<metalsim::checks::race::GroupShadow>();
  return window_.get();
}

uint32_t GpuTimeline::reserve_members(const CommandBuffer* cb, uint64_t group, size_t first_step,
                                      size_t end_step) {
  std::lock_guard lock(mutex_);
  const uint32_t first = uint32_t(members_.size());
  for (size_t step = first_step; step < end_step; ++step)
    members_.push_back({cb->timeline_serial_, int64_t(step), group});
  return first;
}

// What comes before `later` on the GPU, by a backward search from it: for each buffer reached,
// the step before which everything in it precedes `later`.
std::map<uint64_t, int64_t> GpuTimeline::preceding(const timeline::Member& later) const {
  std::map<uint64_t, int64_t> bound;
  std::vector<uint64_t> work;
  const auto reach = [&](uint64_t buffer, int64_t step) {
    if (buffer == 0 || !buffers_.count(buffer)) return;
    auto [it, fresh] = bound.try_emplace(buffer, step);
    if (!fresh && it->second >= step) return;
    it->second = step;
    work.push_back(buffer);
  };
  uint64_t host_known = 0;  // what the host had seen by then precedes (each time, the latest)
  const auto host_knew = [&](uint64_t when) {
    if (when <= host_known) return;
    host_known = when;
    for (const auto& [serial, b] : buffers_) {
      if (b->observed_at < when) reach(serial, kEnd);
      for (const auto& [step, at] : b->observed_steps)
        if (at < when) reach(serial, step);
    }
  };
  reach(later.buffer, later.step);
  while (!work.empty()) {
    const uint64_t serial = work.back();
    work.pop_back();
    const Buffer& b = *buffers_.at(serial);
    const int64_t limit = bound[serial];
    reach(b.queue_previous, kEnd);
    reach(b.committed_by_handler_of, kEnd);
    host_knew(b.committed_at);
    for (size_t i = 0; i < b.waits.size(); ++i) {
      const Edge& e = b.waits[i];
      if (e.to_step >= limit) continue;
      if (e.from == 0) host_knew(b.waits_host_at[i]);
      else reach(e.from, e.from_step);
    }
  }
  return bound;
}

void GpuTimeline::order_member(uint32_t member,
                               std::vector<std::pair<const char*, const char*>> untracked) {
  std::lock_guard lock(mutex_);
  const timeline::Member& me = members_.at(member);
  const std::map<uint64_t, int64_t> before = preceding(me);
  std::vector<uint8_t> order(members_.size(), metalsim::checks::race::kOrderedByBarriers);
  for (size_t k = 0; k < members_.size(); ++k) {
    const timeline::Member& other = members_[k];
    if (other.buffer == me.buffer) {
      order[k] = other.group == me.group ? metalsim::checks::race::kOrderedByBarriers
                                         : metalsim::checks::race::kOrdered;
      continue;
    }
    auto it = before.find(other.buffer);
    order[k] = it != before.end() && other.step < it->second
                   ? metalsim::checks::race::kOrdered
                   : metalsim::checks::race::kOrderedUnlessUntracked;
  }
  window_->set_member_order(std::move(order), std::move(untracked));
}

void GpuTimeline::note_buffers(const std::vector<std::pair<const char*, uint64_t>>& buffers) {
  for (const auto& [contents, identity] : buffers) {
    auto [it, fresh] = identities_.try_emplace(contents, identity);
    if (fresh || it->second == identity) continue;
    window_->forget(contents);
    it->second = identity;
  }
}

}  // namespace MTL
