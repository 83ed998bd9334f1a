#pragma once
// Dispatching the planted kernels: each row of planted_expectations.h has a function that
// binds the buffers its bug needs, runs it, and returns the reports it produced (the command
// buffer's, or those the test itself makes: schedule comparison, output poison).
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "planted_expectations.h"
#include "simt/engine/schedule.h"
#include "support/host_harness.h"

namespace metalsim::testing::planted {

struct Outcome {
  bool ran = false;  // a dispatch was made (false: the row cannot run here)
  MTL::CommandBufferStatus status = MTL::CommandBufferStatusNotEnqueued;
  std::vector<report::Report> reports;
  std::string text;  // every report, formatted
};

inline Outcome outcome_of(const MTL::CommandBuffer* cb) {
  Outcome o;
  o.ran = true;
  o.status = cb->status();
  o.reports = cb->reports();
  o.text = Harness::reports(cb);
  return o;
}

// --- outputs poisoned with a NaN payload no kernel computes: "still poison" = never written.
inline constexpr uint32_t kPoisonBits = 0x7FC5A5A5u;

inline NS::SharedPtr<MTL::Buffer> poisoned_buffer(Harness& h, size_t floats) {
  auto b = h.buffer(floats * 4);
  auto* p = static_cast<uint32_t*>(b->contents());
  for (size_t i = 0; i < floats; ++i) p[i] = kPoisonBits;
  return b;
}

// One uninit.output report per output: the first element still poison, and how many are.
inline void report_unwritten(const std::string& kernel, const std::string& name, uint32_t index,
                             const MTL::Buffer* out, size_t floats,
                             std::vector<report::Report>& reports) {
  const auto* p = static_cast<const uint32_t*>(out->contents());
  size_t first = floats, count = 0;
  for (size_t i = 0; i < floats; ++i)
    if (p[i] == kPoisonBits && count++ == 0) first = i;
  if (count == 0) return;
  report::Report r;
  r.check = report::CheckId::uninit_output;
  r.kernel = kernel;
  r.memory = "buffer(" + std::to_string(index) + ") '" + name + "'";
  r.has_offset = true;
  r.offset = first * 4;
  r.message = name + "[" + std::to_string(first) + "] was never written (" + std::to_string(count) +
              " of " + std::to_string(floats) + " elements never written)";
  reports.push_back(std::move(r));
}

// --- schedule fuzzing: the same dispatch under several schedules, outputs compared bytewise.
// The producer-consumer pair of race_dispatch.metal ran in order: out = in * 2 + 1 everywhere.
inline bool consumer_saw_producer(const MTL::Buffer& in, const MTL::Buffer& out, uint32_t count) {
  const auto* x = static_cast<const float*>(in.contents());
  const auto* y = static_cast<const float*>(out.contents());
  for (uint32_t i = 0; i < count; ++i)
    if (y[i] != x[i] * 2.0f + 1.0f) return false;
  return true;
}

inline const char* const kSchedules[] = {"in-order", "reversed", "random:7"};

struct Output {
  uint32_t index;  // [[buffer(N)]]
  std::string name;
  const MTL::Buffer* buffer;
};

// Runs `dispatch` (which resets its inputs and outputs, then runs) under each schedule with one
// worker, and reports race.schedule for the first output byte that differs from in-order.
inline Outcome compare_schedules(Harness& h, const std::string& kernel,
                                 const std::function<const MTL::CommandBuffer*()>& dispatch,
                                 const std::vector<Output>& outputs, uint32_t elem_bytes,
                                 std::string* log = nullptr) {
  Outcome o;
  std::vector<std::vector<unsigned char>> base;
  const metalsim::SchedulePolicy saved = h.options().schedule;
  for (const char* name : kSchedules) {
    metalsim::SchedulePolicy policy;
    if (!metalsim::SchedulePolicy::parse(name, policy)) continue;
    h.options().schedule = policy;
    const MTL::CommandBuffer* cb = dispatch();
    o.ran = true;
    o.status = cb->status();
    if (log) *log += std::string(name) + ": " + Harness::reports(cb);
    std::vector<std::vector<unsigned char>> now;
    for (const Output& out : outputs) {
      const auto* p = static_cast<const unsigned char*>(out.buffer->contents());
      now.emplace_back(p, p + out.buffer->length());
    }
    if (base.empty()) {
      base = std::move(now);
      continue;
    }
    for (size_t k = 0; k < outputs.size() && o.reports.empty(); ++k) {
      for (size_t b = 0; b < now[k].size(); ++b) {
        if (now[k][b] == base[k][b]) continue;
        const size_t elem = b / elem_bytes;
        uint32_t was = 0, is = 0;
        std::memcpy(&was, &base[k][elem * elem_bytes], std::min<size_t>(4, elem_bytes));
        std::memcpy(&is, &now[k][elem * elem_bytes], std::min<size_t>(4, elem_bytes));
        report::Report r;
        r.check = report::CheckId::race_schedule;
        r.kernel = kernel;
        r.memory = "buffer(" + std::to_string(outputs[k].index) + ") '" + outputs[k].name + "'";
        r.has_offset = true;
        r.offset = elem * elem_bytes;
        char words[160];
        std::snprintf(words, sizeof words, "%s[%zu] is 0x%08x under in-order and 0x%08x under %s",
                      outputs[k].name.c_str(), elem, was, is, name);
        r.message = words;
        o.reports.push_back(std::move(r));
        break;
      }
    }
  }
  h.options().schedule = saved;
  for (const auto& r : o.reports) o.text += r.format();
  return o;
}

using Dispatcher = std::function<Outcome(Harness&)>;

// Key: "kernel check".
const std::map<std::string, Dispatcher>& dispatchers();

}  // namespace metalsim::testing::planted

namespace metalsim::testing::planted {
// Defined in planted_race_test.cpp: the race rows (schedule comparison and TSan).
void add_race_dispatchers(std::map<std::string, Dispatcher>& into);
// Defined in planted_dispatch_test.cpp: the race.dispatch rows (concurrent groups).
void add_dispatch_dispatchers(std::map<std::string, Dispatcher>& into);
}  // namespace metalsim::testing::planted
