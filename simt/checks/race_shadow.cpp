#include "simt/checks/race_shadow.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <string>

#include "simt/checks/access_check.h"
#include "simt/checks/check_notice.h"
#include "simt/checks/race_annotations.h"
#include "simt/checks/running_threadgroup.h"

namespace metalsim::checks::race {

// ------------------------------ Clock

void Clock::begin(uint64_t linear_threadgroup) {
  run = uint32_t(linear_threadgroup + 1);
  serial = 1;
  barrier_serial = 0;
  std::fill(std::begin(simd_serial), std::end(simd_serial), 0u);
  acting_lane = -1;
}

void Clock::barrier() { barrier_serial = ++serial; }

void Clock::collective_begin(uint32_t simdgroup, uint32_t head_lane) {
  simd_serial[simdgroup] = ++serial;
  acting_lane = int32_t(head_lane);
}

void Clock::collective_end(uint32_t simdgroup) {
  simd_serial[simdgroup] = ++serial;
  acting_lane = -1;
}

// ------------------------------ CellSpace

CellMapping::CellMapping(const char* begin, const char* end, size_t cell_bytes)
    : begin_(begin),
      end_(end),
      base_(reinterpret_cast<const char*>(uintptr_t(begin) & ~uintptr_t(3))) {
  bytes_ = (size_t(end - base_) + 3) / 4 * cell_bytes;
  if (bytes_ == 0) return;
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  cells_ = p;
}

CellMapping::~CellMapping() {
  if (cells_ != nullptr) munmap(cells_, bytes_);
}

// ------------------------------ DispatchShadow

DispatchShadow::DispatchShadow(const abi::DispatchRequest& request)
    : request_(request), locks_(new Lock[kLocks]) {
  for (const abi::MemoryRange& m : request.memory) {
    const bool known = std::any_of(spaces_.begin(), spaces_.end(),
                                   [&](const Space& s) { return s.cells->begin() == m.contents; });
    if (known || m.contents == nullptr || m.end <= m.contents) continue;
    spaces_.push_back({std::make_unique<CellSpace>(m.contents, m.end), m.name, m.origin});
  }
}

CellSpace* DispatchShadow::device_space(const char* p, std::string& name, const char*& origin) {
  for (Space& s : spaces_) {
    if (!s.cells->contains(p)) continue;
    name = s.name;
    origin = s.origin;
    return s.cells.get();
  }
  return nullptr;
}

DispatchShadow::Cells DispatchShadow::device_cells(const char* p) const {
  for (const Space& s : spaces_)
    if (s.cells->contains(p)) return {s.cells.get(), s.group};
  return {};
}

void DispatchShadow::set_group(GroupShadow* group) {
  group_ = group;
  for (Space& s : spaces_) s.group = group->cells_of(s.cells->begin(), s.cells->end());
}

bool DispatchShadow::first_report(const void* pc, const void* other_pc) {
  std::lock_guard lock(reported_mutex_);
  if (reported_.size() >= kMaxReported) return false;
  return reported_.insert({pc, other_pc}).second;
}

// ------------------------------ DispatchRace

#if defined(METALSIM_ACCESS_CHECKS)
constexpr bool kKernelsReportAccesses = true;
#else
constexpr bool kKernelsReportAccesses = false;
#endif

DispatchRace::DispatchRace(const abi::DispatchRequest& request, bool lane_loops) {
  if (!request.options.checks.race || kEnabled) return;  // tsan preset: ThreadSanitizer's
  if (!kKernelsReportAccesses) {
    notice_once(
        "the race check did not run: kernels are built without the access-check pass "
        "(it needs LLVM 19 and METALSIM_KERNEL_COMPILER=clang); the tsan preset runs "
        "ThreadSanitizer's");
    return;
  }
  if (lane_loops) {
    notice_once(
        "the race check did not run: lane loops run a threadgroup's lanes together "
        "(--mode fibers or auto run it)");
    return;
  }
  shadow_ = std::make_unique<DispatchShadow>(request);
  if (request.group != nullptr) {
    request.group->begin_member(request);
    shadow_->set_group(request.group);
  }
  __atomic_fetch_add(&__metalsim_access_every, 1u, __ATOMIC_SEQ_CST);
}

DispatchRace::~DispatchRace() {
  if (shadow_) __atomic_fetch_sub(&__metalsim_access_every, 1u, __ATOMIC_SEQ_CST);
}

// ------------------------------ one access

namespace {

class SpinLock {
 public:
  explicit SpinLock(std::atomic<uint8_t>& v) : v_(v) {
    while (v_.exchange(1, std::memory_order_acquire) != 0) {
    }
  }
  ~SpinLock() { v_.store(0, std::memory_order_release); }
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

 private:
  std::atomic<uint8_t>& v_;
};

Record record_of(const Access& a) {
  Record r;
  r.run = a.run;
  r.serial = a.serial;
  r.pc = uint64_t(reinterpret_cast<uintptr_t>(a.pc)) & ((uint64_t(1) << 47) - 1);
  r.lane = a.lane;
  r.mask = a.mask;
  return r;
}

bool same_simdgroup(const Record& r, uint32_t lane) {
  return !r.many_simd && r.lane / abi::kSimdWidth == lane / abi::kSimdWidth;
}

}  // namespace

void WorkerShadow::begin(DispatchShadow& dispatch, uint64_t serial, uint64_t linear_threadgroup,
                         const char* arena_begin, const char* arena_end) {
  dispatch_ = &dispatch;
  if (serial != dispatch_serial_ || !arena_ || arena_->begin() != arena_begin ||
      arena_->end() != arena_end) {
    arena_.reset();  // fresh cells: nothing of an earlier dispatch is remembered
    arena_ = std::make_unique<CellSpace>(arena_begin, arena_end);
    dispatch_serial_ = serial;
  }
  clock_.begin(linear_threadgroup);
}

// `earlier` (a write, or the reads since) happened before `now` by MSL's rules.
bool WorkerShadow::ordered(const Record& earlier, const Access& now) const {
  if (earlier.run != now.run || earlier.many_runs) return false;
  if (earlier.serial < clock_.barrier_serial) return true;
  const uint32_t sg = now.lane / abi::kSimdWidth;
  if (same_simdgroup(earlier, now.lane) && earlier.serial < clock_.simd_serial[sg]) return true;
  return !earlier.many_lanes && earlier.lane == now.lane;
}

// Keeps what a later write must be checked against: the reads not ordered before this one,
// and this one. A summary of several lanes keeps the bytes they all read.
static void merge_read(Record& reads, const Record& mine, bool ordered_before) {
  if (reads.run == 0 || ordered_before) {
    reads = mine;
    return;
  }
  const uint8_t common = uint8_t(reads.mask & mine.mask);
  if (common == 0) {  // other bytes: keep the newest
    reads = mine;
    return;
  }
  reads.mask = common;
  if (reads.run != mine.run) {
    reads.many_runs = 1;
    return;
  }
  reads.many_lanes = 1;
  if (!same_simdgroup(reads, uint32_t(mine.lane))) reads.many_simd = 1;
  reads.serial = std::max(reads.serial, mine.serial);
}

void WorkerShadow::check_granule(RunningThreadgroup& running, Cell& cell, const Access& a,
                                 bool threadgroup) {
  if (threadgroup) {  // the arena's cells of an earlier threadgroup are stale
    if (cell.write.run != a.run) cell.write = Record{};
    if (cell.read.run != a.run && !cell.read.many_runs) cell.read = Record{};
  }
  if (cell.write.run != 0 && (cell.write.mask & a.mask) != 0 && !ordered(cell.write, a))
    report(running, a, cell.write, true, threadgroup);
  if (a.write && cell.read.run != 0 && (cell.read.mask & a.mask) != 0 && !ordered(cell.read, a))
    report(running, a, cell.read, false, threadgroup);
  const Record mine = record_of(a);
  if (!a.write) {
    merge_read(cell.read, mine, ordered(cell.read, a));
    return;
  }
  const bool same =
      cell.write.run == a.run && cell.write.lane == a.lane && cell.write.serial == a.serial;
  const uint8_t mask = uint8_t(mine.mask | (same ? cell.write.mask : 0));
  cell.write = mine;
  cell.write.mask = mask;
}

void WorkerShadow::on_access(RunningThreadgroup& running, uint32_t lane, const char* address,
                             size_t bytes, bool write, const void* pc) {
  DispatchShadow::Cells cells;
  const bool threadgroup = arena_ && arena_->contains(address);
  if (threadgroup) cells.dispatch = arena_.get();
  else cells = dispatch_->device_cells(address);
  CellSpace* space = cells.dispatch;
  if (space == nullptr) return;  // a lane's own memory, or the engine's
  const char* end = std::min(address + bytes, space->end());
  Access a{clock_.run, clock_.serial, lane, pc, write, 0, address};
  for (const char* p = address; p < end;) {
    const char* granule = reinterpret_cast<const char*>(uintptr_t(p) & ~uintptr_t(3));
    const char* stop = std::min(granule + 4, end);
    a.mask = uint8_t(((1u << (stop - p)) - 1) << (p - granule));
    a.address = p;
    if (threadgroup) {
      check_granule(running, space->cell(granule), a, true);
    } else {
      SpinLock lock(dispatch_->lock_for(granule));
      check_granule(running, space->cell(granule), a, false);
      if (cells.group != nullptr)
        dispatch_->group()->on_access(running, *dispatch_, a, *cells.group, granule);
    }
    p = stop;
  }
}

// ------------------------------ GroupShadow (race.dispatch)

GroupShadow::GroupShadow() = default;
GroupShadow::~GroupShadow() = default;

void GroupShadow::add_partial_barrier(uint32_t before,
                                      std::vector<std::pair<const char*, const char*>> ranges) {
  barriers_.push_back({before, std::move(ranges)});
}

void GroupShadow::set_member_order(std::vector<uint8_t> order,
                                   std::vector<std::pair<const char*, const char*>> untracked) {
  order_ = std::move(order);
  untracked_ = std::move(untracked);
}

void GroupShadow::forget(const char* begin) {
  std::erase_if(spaces_, [&](const auto& s) { return s->begin() == begin; });
}

void GroupShadow::begin_member(const abi::DispatchRequest& request) {
  current_ = request.group_member;
  if (members_.size() <= current_) members_.resize(current_ + 1);
  // A window over command buffers reports each pair of instructions once per command buffer.
  if (request.group_context != reported_context_) {
    std::lock_guard lock(reported_mutex_);
    reported_.clear();
    reported_context_ = request.group_context;
  }
  Member& m = members_[current_];
  m.known = true;
  m.label = request.group_label;
  m.context = request.group_context;
  m.kernel = request.kernel != nullptr ? request.kernel->name : "";
  m.geometry = request.geometry;
  for (const abi::MemoryRange& r : request.memory) {
    if (r.contents == nullptr || r.end <= r.contents) continue;
    // The whole buffer, up to its guard page, whatever the binding covers (a texture over part
    // of a buffer and the buffer itself): one space per buffer, the same for every binding.
    const char* end = r.guard_begin != nullptr && r.guard_begin >= r.end ? r.guard_begin : r.end;
    const bool known = std::any_of(spaces_.begin(), spaces_.end(), [&](const auto& s) {
      return s->begin() == r.contents && s->end() >= end;
    });
    if (known) continue;
    forget(r.contents);  // a smaller buffer's, released: its memory is this one's now
    spaces_.push_back(std::make_unique<GroupCellSpace>(r.contents, end));
  }
}

GroupCellSpace* GroupShadow::cells_of(const char* begin, const char* end) const {
  for (const auto& s : spaces_)
    if (s->begin() <= begin && s->end() >= end) return s.get();
  return nullptr;  // none covers it: the group does not see these accesses
}

// Members a (another) and b (the running one) are ordered at `address`: as the host said
// (set_member_order), or by a barrier over `address` between them (0-based, encoding order).
bool GroupShadow::ordered(uint32_t a, uint32_t b, const char* address) const {
  const uint8_t order = a < order_.size() ? order_[a] : kOrderedByBarriers;
  if (order == kOrdered) return true;
  if (order == kOrderedUnlessUntracked)
    return std::none_of(untracked_.begin(), untracked_.end(),
                        [&](const auto& r) { return address >= r.first && address < r.second; });
  const uint32_t lo = std::min(a, b), hi = std::max(a, b);
  for (const Barrier& barrier : barriers_) {
    if (barrier.before <= lo || barrier.before > hi) continue;
    for (const auto& [begin, end] : barrier.ranges)
      if (address >= begin && address < end) return true;
  }
  return false;
}

namespace {

GroupRecord group_record_of(const Access& a, uint32_t member) {
  GroupRecord r;
  r.member = member + 1;
  r.run = a.run;
  r.pc = uint64_t(reinterpret_cast<uintptr_t>(a.pc)) & ((uint64_t(1) << 48) - 1);
  r.lane = a.lane;
  r.mask = a.mask;
  return r;
}

}  // namespace

void GroupShadow::on_access(RunningThreadgroup& running, DispatchShadow& dispatch, const Access& a,
                            GroupCellSpace& cells, const char* granule) {
  GroupCell& cell = cells.cell(granule);
  const uint32_t me = current_ + 1;
  const auto conflicts = [&](const GroupRecord& r) {
    return r.member != 0 && r.member != me && (r.mask & a.mask) != 0 &&
           !ordered(r.member - 1, current_, a.address);
  };
  if (conflicts(cell.write)) {
    report(running, dispatch, a, cell.write, true);
  } else if (a.write) {
    for (const GroupRecord& r : cell.reads)
      if (conflicts(r)) {
        report(running, dispatch, a, r, false);
        break;
      }
  }
  const GroupRecord mine = group_record_of(a, current_);
  if (a.write) {
    const uint8_t mask = uint8_t(mine.mask | (cell.write.member == me ? cell.write.mask : 0));
    cell.write = mine;
    cell.write.mask = mask;
    return;
  }
  for (GroupRecord& r : cell.reads) {
    if (r.member == me) {  // this member's reads: the bytes of all, the newest instruction
      const uint8_t mask = uint8_t(r.mask | mine.mask);
      r = mine;
      r.mask = mask;
      return;
    }
  }
  if (cell.reads[0].member == 0) cell.reads[0] = mine;
  else cell.reads[1] = mine;  // two other members: keep the first, replace the second
}

}  // namespace metalsim::checks::race
