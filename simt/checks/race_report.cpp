// Racecheck (tsan preset): ThreadSanitizer's reports about kernel accesses become metalsim
// reports (race.threadgroup / race.device) on the running dispatch, with both lanes and both
// .metal lines. TSan's own text of those is printed only with METALSIM_TSAN_REPORTS=1; its
// reports about anything else are printed as always. A fault inside a kernel ends the process
// with its report (report_unrecoverable_fault).
#if defined(METALSIM_RACECHECK)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "simt/checks/race_annotations.h"
#include "simt/checks/running_threadgroup.h"
#include "simt/fault/fault.h"
#include "simt/report/symbolize.h"

extern "C" {
// ThreadSanitizer's report API (exported by libtsan; declared here as in LLVM's tsan_interface.h).
int __tsan_get_report_data(void* report, const char** description, int* count, int* stack_count,
                           int* mop_count, int* loc_count, int* mutex_count, int* thread_count,
                           int* unique_tid_count, void** sleep_trace, unsigned long trace_size);
int __tsan_get_report_mop(void* report, unsigned long idx, int* tid, void** addr, int* size,
                          int* write, int* atomic, void** trace, unsigned long trace_size);
int __tsan_get_report_thread(void* report, unsigned long idx, int* tid, uint64_t* os_id,
                             int* running, const char** name, int* parent_tid, void** trace,
                             unsigned long trace_size);
}

namespace metalsim::checks {
namespace {

constexpr unsigned long kTrace = 16;

struct Access {
  int tid = -1;
  void* address = nullptr;
  int size = 0;
  bool write = false;
  void* trace[kTrace] = {};
};

std::string thread_name(void* report, int thread_count, int tid) {
  for (int i = 0; i < thread_count; ++i) {
    int t = 0, running = 0, parent = 0;
    uint64_t os_id = 0;
    const char* name = nullptr;
    void* trace[1];
    if (__tsan_get_report_thread(report, i, &t, &os_id, &running, &name, &parent, trace, 1) &&
        t == tid)
      return name != nullptr && *name != '\0' ? name : "thread T" + std::to_string(tid);
  }
  return "thread T" + std::to_string(tid);
}

// TSan's frames are return addresses (of its __tsan_read/__tsan_write call, and of the calls
// above): the byte before each is inside the call, on the access's line, not the next one.
std::vector<const void*> trace_of(const Access& a) {
  std::vector<const void*> trace;
  for (void* pc : a.trace) {
    if (pc == nullptr) break;
    trace.push_back(static_cast<const char*>(pc) - 1);
  }
  return trace;
}

bool print_raw_reports() {
  const char* v = std::getenv("METALSIM_TSAN_REPORTS");
  return v != nullptr && *v != '\0' && *v != '0';
}

}  // namespace
}  // namespace metalsim::checks

// Called by dispatch.cpp so the linker keeps this object (and the hook) from the archive.
namespace metalsim::checks {
void link_race_reporting() {}
}  // namespace metalsim::checks

namespace {
bool convert_report(void* report);
thread_local const void* tls_seen_report = nullptr;  // converted (or not) by OnReport already
}  // namespace

// Racecheck's defaults (TSAN_OPTIONS still overrides them):
// - every race is reported, also when the same instructions raced before (each dispatch that
//   races must fail, not only the first of the process);
// - exit status 0: a kernel's race is a metalsim report that fails its command buffer; TSan's
//   printed report stays for races outside kernels;
// - kernels' lanes are fibers that a signal may interrupt anywhere (the watchdog).
extern "C" const char* __tsan_default_options() {
  return "suppress_equal_stacks=0:suppress_equal_addresses=0:exitcode=0:report_signal_unsafe=0:"
         "history_size=4";
}

// ThreadSanitizer asks this (weak in libtsan) before it prints a report: true keeps it quiet.
// A kernel's race becomes a metalsim report and is not printed unless METALSIM_TSAN_REPORTS is
// set. Inline library code (std::vector, std::string) may be the instrumented copy the linker
// kept: its accesses here must not raise a nested report, which would deadlock TSan.
namespace __tsan {
class ReportDesc;
bool OnReport(const ReportDesc* rep, bool suppressed);
bool OnReport(const ReportDesc* rep, bool suppressed) {
  if (suppressed) return true;
  void* report = const_cast<ReportDesc*>(rep);
  tls_seen_report = report;
  __tsan_ignore_thread_begin();
  const bool converted = convert_report(report);
  __tsan_ignore_thread_end();
  return converted && !metalsim::checks::print_raw_reports();
}
}  // namespace __tsan

// Called after TSan printed a report: converts it where OnReport was not called (a libtsan that
// does not let the program replace it).
extern "C" void __tsan_on_report(void* report) {
  if (report == tls_seen_report) return;
  __tsan_ignore_thread_begin();
  convert_report(report);
  __tsan_ignore_thread_end();
}

// Declared in simt/fault/fault.h: the trap calls it when a ThreadSanitizer build cannot recover.
namespace metalsim::fault {

void report_unrecoverable_fault(const FaultRecord& fault) {
  __tsan_ignore_thread_begin();
  std::string text;
  if (checks::RunningThreadgroup* running = checks::RunningThreadgroup::current()) {
    text = running->classify_fault(fault).format();
  } else {
    report::Report r;
    r.check = fault.timeout ? report::CheckId::watchdog_timeout : report::CheckId::kernel_fault;
    r.site = report::symbolize(fault.pc);
    r.message = fault.timeout ? "the dispatch ran past its watchdog limit"
                              : "memory fault inside a kernel (lane loops: the lane is unknown)";
    text = r.format();
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  text +=
      "metalsim: ThreadSanitizer builds cannot recover from a fault inside a kernel: the "
      "process ends here, with status 1 (the release build reports it and goes on)\n";
  std::fputs(text.c_str(), stderr);
  __tsan_ignore_thread_end();
}

}  // namespace metalsim::fault

namespace {
// True when `report` was about a kernel's access and is now a metalsim report.
bool convert_report(void* report) {
  using namespace metalsim;
  checks::RunningThreadgroup* running = checks::RunningThreadgroup::current();
  if (running == nullptr || report == nullptr)
    return false;  // not a kernel's access: TSan's own report stands
  if (!running->request().options.checks.race)
    return false;  // --checks without race: TSan's text only
  const char* description = nullptr;
  int count = 0, stacks = 0, mops = 0, locs = 0, mutexes = 0, threads = 0, tids = 0;
  void* sleep[1];
  if (!__tsan_get_report_data(report, &description, &count, &stacks, &mops, &locs, &mutexes,
                              &threads, &tids, sleep, 1) ||
      mops < 2)
    return false;
  checks::Access a[2];
  for (int i = 0; i < 2; ++i) {
    int atomic = 0, write = 0;
    __tsan_get_report_mop(report, i, &a[i].tid, &a[i].address, &a[i].size, &write, &atomic,
                          a[i].trace, checks::kTrace);
    a[i].write = write != 0;
  }
  std::string region;
  uint64_t offset = 0;
  report::CheckId id = report::CheckId::race_device;
  if (running->describe_threadgroup_memory(a[0].address, region, offset)) {
    id = report::CheckId::race_threadgroup;
  } else {
    for (const abi::MemoryRange& m : running->request().memory) {
      auto* p = static_cast<const char*>(a[0].address);
      if (p >= m.origin && p < m.end) {
        region = m.name;
        offset = uint64_t(p - m.origin);
      }
    }
  }
  report::Report r = running->lane_report(id, running->current_lane(), nullptr);
  // Symbolized when the dispatch ends: running addr2line inside TSan's report would deadlock.
  r.site_trace = checks::trace_of(a[0]);
  r.other_trace = checks::trace_of(a[1]);
  r.memory = region.empty() ? "memory" : region;
  r.has_offset = !region.empty();
  r.offset = int64_t(offset);
  r.other_lanes =
      checks::thread_name(report, threads, a[1].tid) + (a[1].write ? " (write)" : " (read)");
  r.message = std::string(a[0].write ? "write" : "read") + " of " + std::to_string(a[0].size) +
              " bytes conflicts with an earlier " + (a[1].write ? "write" : "read") +
              " by another thread, with no barrier between them";
  running->defer_report(std::move(r));
  return true;
}
}  // namespace
#else
namespace metalsim::checks {
void link_race_reporting() {}
}  // namespace metalsim::checks
#endif
