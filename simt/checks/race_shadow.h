#pragma once
// The shadow racecheck (docs/checks.md): with `race` on, instrumented kernels report every load
// and store to the engine (access_check.cpp), which keeps, per 4-byte granule of threadgroup and
// device memory, the last write and a summary of the reads since, each with its threadgroup,
// lane, instruction and the threadgroup's sync serial at the time. Two accesses of different
// lanes to one byte, at least one a write, conflict unless MSL orders them:
//  - a threadgroup barrier between them orders every lane of the threadgroup;
//  - a simd function or simdgroup barrier between them orders the lanes of that simdgroup;
//  - nothing orders two threadgroups of one dispatch; dispatches are ordered, but for those of
//    one concurrent group (GroupShadow below: race.dispatch);
//  - atomics are not recorded: Metal's are relaxed; they race with nothing and order nothing.
// A conflict is race.threadgroup or race.device naming both lanes and both .metal lines.
//
// Threadgroup memory's cells belong to the worker (its arena, reused by each threadgroup: cells
// of another threadgroup are stale); device memory's to the dispatch, shared by the workers under
// striped locks. Both take 8 bytes of shadow per byte touched (reserved lazily).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "simt/abi/builtin.h"
#include "simt/abi/dispatch_request.h"
#include "simt/abi/geometry.h"

namespace metalsim::checks {
class RunningThreadgroup;
}

namespace metalsim::checks::race {

inline constexpr uint32_t kSimdgroups = abi::kMaxThreadsPerThreadgroup / abi::kSimdWidth;

// How far the running threadgroup's lanes are ordered: the serial ticks at every resolution of a
// sync point; an access made at a serial below barrier_serial happened before the last barrier.
struct Clock {
  uint32_t run = 0;  // linear threadgroup + 1 (0: none)
  uint32_t serial = 0;
  uint32_t barrier_serial = 0;
  uint32_t simd_serial[kSimdgroups] = {};
  int32_t acting_lane = -1;  // a simd combine runs for its lanes: attributed to this one

  void begin(uint64_t linear_threadgroup);
  void barrier();
  // Around a collective's combine: its accesses come after the members' earlier ones and
  // before their later ones.
  void collective_begin(uint32_t simdgroup, uint32_t head_lane);
  void collective_end(uint32_t simdgroup);
};

// One recorded access (or summary of reads).
struct Record {
  uint32_t run = 0;  // 0: none
  uint32_t serial = 0;
  uint64_t pc : 47 = 0;
  uint64_t lane : 10 = 0;
  uint64_t mask : 4 = 0;        // bytes of the granule
  uint64_t many_lanes : 1 = 0;  // reads by two or more lanes of one threadgroup
  uint64_t many_simd : 1 = 0;   // ... of two or more simdgroups
  uint64_t many_runs : 1 = 0;   // reads by two or more threadgroups
};

struct Cell {
  Record write, read;
};

// Cells for [begin, end), one per 4-byte granule, mapped lazily (MAP_NORESERVE).
class CellMapping {
 public:
  CellMapping(const char* begin, const char* end, size_t cell_bytes);
  ~CellMapping();
  CellMapping(const CellMapping&) = delete;
  CellMapping& operator=(const CellMapping&) = delete;
  bool contains(const char* p) const { return p >= begin_ && p < end_; }
  const char* begin() const { return begin_; }
  const char* end() const { return end_; }
  // begin() rounded down to 4 bytes (a no-copy buffer's need not be aligned): cell 0's first byte.
  const char* base() const { return base_; }

 protected:
  void* cells_ = nullptr;

 private:
  const char* begin_;
  const char* end_;
  const char* base_;
  size_t bytes_ = 0;
};

template <class C>
class BasicCellSpace : public CellMapping {
 public:
  BasicCellSpace(const char* begin, const char* end) : CellMapping(begin, end, sizeof(C)) {}
  // `p`: 4-byte aligned (a cell's first byte), at or after the cell holding begin().
  C& cell(const char* p) { return static_cast<C*>(cells_)[size_t(p - base()) >> 2]; }
};
using CellSpace = BasicCellSpace<Cell>;

class GroupShadow;
struct Access;
struct GroupCell;
using GroupCellSpace = BasicCellSpace<GroupCell>;

// The device memory of one dispatch: a space per bound buffer, locks, and the pairs of
// instructions already reported (each conflict is reported once per dispatch).
class DispatchShadow {
 public:
  explicit DispatchShadow(const abi::DispatchRequest& request);
  const abi::DispatchRequest& request() const { return request_; }
  CellSpace* device_space(const char* p, std::string& name, const char*& origin);
  // The same without the name, for every access: the dispatch's cells of `p` and the group's.
  struct Cells {
    CellSpace* dispatch = nullptr;
    GroupCellSpace* group = nullptr;
  };
  Cells device_cells(const char* p) const;
  std::atomic<uint8_t>& lock_for(const char* p) { return locks_[(uintptr_t(p) >> 6) % kLocks].v; }
  // True the first time this pair of instructions conflicts in this dispatch.
  bool first_report(const void* pc, const void* other_pc);
  // The dispatches Metal may run at the same time as this one (race.dispatch), or nullptr.
  GroupShadow* group() const { return group_; }
  void set_group(GroupShadow* group);

 private:
  struct Space {
    std::unique_ptr<CellSpace> cells;
    std::string name;                 // of the first binding of the buffer
    const char* origin;               // its bound address (byte offset 0 of the report)
    GroupCellSpace* group = nullptr;  // the group's cells of the same buffer
  };
  static constexpr size_t kLocks = 1024;
  static constexpr size_t kMaxReported = 256;
  struct alignas(64) Lock {
    std::atomic<uint8_t> v{0};
  };
  const abi::DispatchRequest& request_;
  std::vector<Space> spaces_;
  std::unique_ptr<Lock[]> locks_;
  std::mutex reported_mutex_;
  std::set<std::pair<const void*, const void*>> reported_;
  GroupShadow* group_ = nullptr;
};

// One access being checked.
struct Access {
  uint32_t run, serial, lane;
  const void* pc;
  bool write;
  uint8_t mask;         // bytes of the granule
  const char* address;  // the access's first byte in the granule
};

// One worker's part: the clock of its running threadgroup and its arena's cells.
class WorkerShadow {
 public:
  // Starts a threadgroup of `dispatch`; `arena` is this worker's threadgroup memory mapping.
  // `serial`: the dispatch's (DispatchState::serial): the arena's cells are fresh per dispatch.
  void begin(DispatchShadow& dispatch, uint64_t serial, uint64_t linear_threadgroup,
             const char* arena_begin, const char* arena_end);
  Clock& clock() { return clock_; }
  // Checks and records one access by `lane` of the running threadgroup.
  void on_access(RunningThreadgroup& running, uint32_t lane, const char* address, size_t bytes,
                 bool write, const void* pc);

 private:
  void check_granule(RunningThreadgroup& running, Cell& cell, const Access& a, bool threadgroup);
  void report(RunningThreadgroup& running, const Access& a, const Record& other, bool other_write,
              bool threadgroup);
  bool ordered(const Record& earlier, const Access& now) const;

  DispatchShadow* dispatch_ = nullptr;
  uint64_t dispatch_serial_ = 0;
  Clock clock_;
  std::unique_ptr<CellSpace> arena_;
};

// race.dispatch: the device accesses of dispatches Metal may run at the same time (a concurrent
// encoder's dispatches between memory barriers, an indirect command buffer's commands between
// barriers), which metalsim runs one after another. The host makes one per such group of two or
// more dispatches (with `race` on) and drops it at the group's end (a barrier over every buffer);
// every dispatch of the group records its device accesses here, by its index in the group, besides
// its own DispatchShadow. An access of a location another member wrote, or a write of one another
// member read, is a conflict unless a barrier over that buffer (memoryBarrier with resources)
// lies between the two members in encoding order. Atomics are not recorded (access_check.cpp).
// Per 4-byte granule: the last write and the reads of two members (enough to find a member other
// than the writer), 48 bytes of shadow per 4 bytes touched, mapped lazily.
struct GroupRecord {
  uint32_t member = 0;  // index in the group + 1 (0: none)
  uint32_t run = 0;     // linear threadgroup + 1
  uint64_t pc : 48 = 0;
  uint64_t lane : 12 = 0;
  uint64_t mask : 4 = 0;  // bytes of the granule
};

// How another member is ordered with the running one, when the host says
// (GroupShadow::set_member_order): by the barriers between them (a concurrent group's members),
// always (a command buffer's members of other groups; dispatches the GPU orders), or on memory
// Metal tracks only (dispatches of command buffers of two queues that nothing orders).
inline constexpr uint8_t kOrderedByBarriers = 0;
inline constexpr uint8_t kOrdered = 1;
inline constexpr uint8_t kOrderedUnlessUntracked = 2;

struct GroupCell {
  GroupRecord write;
  GroupRecord reads[2];  // of two different members
};

class GroupShadow {
 public:
  GroupShadow();
  ~GroupShadow();
  GroupShadow(const GroupShadow&) = delete;
  GroupShadow& operator=(const GroupShadow&) = delete;

  // A barrier before member `before` (encoding order) that orders only `ranges` of device memory
  // (memoryBarrier(resources, count)): accesses of these ranges by members on its two sides are
  // ordered.
  void add_partial_barrier(uint32_t before,
                           std::vector<std::pair<const char*, const char*>> ranges);
  // For a shadow spanning command buffers (the host's window of several queues, gpu_timeline.h):
  // before the next member runs, how each member is ordered with it (kOrdered...), by index, and
  // the untracked memory it binds. Without it every member is ordered by barriers only.
  void set_member_order(std::vector<uint8_t> order,
                        std::vector<std::pair<const char*, const char*>> untracked);
  // What was recorded of the memory starting at `begin` is forgotten (another buffer now lives
  // there).
  void forget(const char* begin);
  // The dispatch of `request` (request.group_member) starts: its buffers get cells.
  void begin_member(const abi::DispatchRequest& request);
  // The cells covering [begin, end) (begin_member made them: one space per buffer, to its guard
  // page), or nullptr.
  GroupCellSpace* cells_of(const char* begin, const char* end) const;
  // Checks and records access `a` of the running member (`dispatch`: its shadow) in `cells`; the
  // caller holds the dispatch's lock of the access's granule (members run one at a time).
  void on_access(RunningThreadgroup& running, DispatchShadow& dispatch, const Access& a,
                 GroupCellSpace& cells, const char* granule);
  size_t members() const { return members_.size(); }

 private:
  struct Member {
    bool known = false;
    std::string label;    // "dispatch 2"
    std::string context;  // " of command buffer 3 on queue 2", or empty
    std::string kernel;   // its kernel's name
    abi::DispatchGeometry geometry;
  };
  struct Barrier {
    uint32_t before;
    std::vector<std::pair<const char*, const char*>> ranges;
  };
  bool ordered(uint32_t a, uint32_t b, const char* address) const;
  void report(RunningThreadgroup& running, DispatchShadow& dispatch, const Access& a,
              const GroupRecord& other, bool other_write);

  std::vector<Member> members_;
  uint32_t current_ = 0;
  std::vector<Barrier> barriers_;
  std::vector<uint8_t> order_;
  std::vector<std::pair<const char*, const char*>> untracked_;
  std::vector<std::unique_ptr<GroupCellSpace>> spaces_;
  std::mutex reported_mutex_;
  std::set<std::pair<const void*, const void*>> reported_;
  std::string reported_context_;  // the command buffer reported_ is of
};

// The shadow racecheck of one dispatch while it runs (dispatch.cpp): on when the dispatch asks
// for `race`, runs on fibers (lane loops run lanes together) and this is not the tsan preset
// (whose racecheck is ThreadSanitizer's); while on, instrumented kernels report every access.
class DispatchRace {
 public:
  DispatchRace(const abi::DispatchRequest& request, bool lane_loops);
  ~DispatchRace();
  DispatchRace(const DispatchRace&) = delete;
  DispatchRace& operator=(const DispatchRace&) = delete;
  DispatchShadow* shadow() const { return shadow_.get(); }

 private:
  std::unique_ptr<DispatchShadow> shadow_;
};

}  // namespace metalsim::checks::race
