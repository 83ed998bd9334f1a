#pragma once
// The shadow racecheck (docs/checks.md): with `race` on, instrumented kernels report every load
// and store to the engine (access_check.cpp), which keeps, per 4-byte granule of threadgroup and
// device memory, the last write and a summary of the reads since, each with its threadgroup,
// lane, instruction and the threadgroup's sync serial at the time. Two accesses of different
// lanes to one byte, at least one a write, conflict unless MSL orders them:
//  - a threadgroup barrier between them orders every lane of the threadgroup;
//  - a simd function or simdgroup barrier between them orders the lanes of that simdgroup;
//  - nothing orders two threadgroups of one dispatch (dispatches are ordered);
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
#include <tuple>
#include <vector>

#include "simt/abi/builtin.h"
#include "simt/abi/dispatch_request.h"

namespace metalsim::engine {
class RunningThreadgroup;
}

namespace metalsim::engine::race {

inline constexpr uint32_t kSimdgroups = kMaxThreadsPerThreadgroup / kSimdWidth;

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
class CellSpace {
 public:
  CellSpace(const char* begin, const char* end);
  ~CellSpace();
  CellSpace(const CellSpace&) = delete;
  CellSpace& operator=(const CellSpace&) = delete;
  bool contains(const char* p) const { return p >= begin_ && p < end_; }
  // `p`: 4-byte aligned (a cell's first byte), at or after the cell holding begin().
  Cell& cell(const char* p) { return cells_[size_t(p - base_) >> 2]; }
  const char* begin() const { return begin_; }
  const char* end() const { return end_; }

 private:
  const char* begin_;
  const char* end_;
  const char* base_;  // begin_ rounded down to 4 bytes (a no-copy buffer's need not be aligned)
  Cell* cells_ = nullptr;
  size_t bytes_ = 0;
};

// The device memory of one dispatch: a space per bound buffer, locks, and the pairs of
// instructions already reported (each conflict is reported once per dispatch).
class DispatchShadow {
 public:
  explicit DispatchShadow(const DispatchRequest& request);
  const DispatchRequest& request() const { return request_; }
  CellSpace* device_space(const char* p, std::string& name, const char*& origin);
  std::atomic<uint8_t>& lock_for(const char* p) { return locks_[(uintptr_t(p) >> 6) % kLocks].v; }
  // True the first time this pair of instructions conflicts in this dispatch.
  bool first_report(const void* pc, const void* other_pc);

 private:
  struct Space {
    std::unique_ptr<CellSpace> cells;
    std::string name;    // of the first binding of the buffer
    const char* origin;  // its bound address (byte offset 0 of the report)
  };
  static constexpr size_t kLocks = 1024;
  static constexpr size_t kMaxReported = 256;
  struct alignas(64) Lock {
    std::atomic<uint8_t> v{0};
  };
  const DispatchRequest& request_;
  std::vector<Space> spaces_;
  std::unique_ptr<Lock[]> locks_;
  std::mutex reported_mutex_;
  std::set<std::pair<const void*, const void*>> reported_;
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

// The shadow racecheck of one dispatch while it runs (dispatch.cpp): on when the dispatch asks
// for `race`, runs on fibers (lane loops run lanes together) and this is not the tsan preset
// (whose racecheck is ThreadSanitizer's); while on, instrumented kernels report every access.
class DispatchRace {
 public:
  DispatchRace(const DispatchRequest& request, bool lane_loops);
  ~DispatchRace();
  DispatchRace(const DispatchRace&) = delete;
  DispatchRace& operator=(const DispatchRace&) = delete;
  DispatchShadow* shadow() const { return shadow_.get(); }

 private:
  std::unique_ptr<DispatchShadow> shadow_;
};

}  // namespace metalsim::engine::race
