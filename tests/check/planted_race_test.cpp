// Races: the same dispatch under the in-order, reversed and random:7 schedules (one worker),
// outputs compared byte for byte; a difference is the finding (race.schedule, any build). The
// tsan preset's racecheck (race.threadgroup / race.device) runs the same kernels.
#include <gtest/gtest.h>

#include "planted_support.h"
#include "simt/checks/race_annotations.h"
#include "simt/report/check_id.h"

namespace metalsim::testing::planted {
namespace {

constexpr uint32_t kThreads = 64;

// Missing barrier, reversed through threadgroup memory: 2 threadgroups of 64.
Outcome race_tg_reverse(Harness& h, std::string* log = nullptr) {
  std::vector<float> in(2 * kThreads);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = float(i);
  auto a = h.buffer(in);
  auto out = h.buffer(in.size() * 4);
  auto dispatch = [&]() -> const MTL::CommandBuffer* {
    std::memset(out->contents(), 0, out->length());
    return h.run("planted_race_tg_reverse",
                 [&](auto* e) {
                   e->setBuffer(a.get(), 0, 0);
                   e->setBuffer(out.get(), 0, 1);
                 },
                 {2, 1, 1}, {kThreads, 1, 1});
  };
  Outcome o =
      compare_schedules(h, "planted_race_tg_reverse", dispatch, {{1, "out", out.get()}}, 4, log);
  for (auto& r : o.reports) {  // out[gid] is thread gid's
    r.has_lane = true;
    r.lane.threadgroup = {uint32_t(r.offset / 4 / kThreads), 0, 0};
    r.lane.thread = {uint32_t(r.offset / 4 % kThreads), 0, 0};
  }
  return o;
}

// Missing barrier in a tree reduction: out[tg] is the sum of threadgroup tg's 64 inputs.
Outcome race_tg_reduce(Harness& h, std::string* log = nullptr) {
  std::vector<float> in(2 * kThreads);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = float(i + 1);
  auto a = h.buffer(in);
  auto out = h.buffer(4 * 4);
  auto dispatch = [&]() -> const MTL::CommandBuffer* {
    std::memset(out->contents(), 0, out->length());
    return h.run("planted_race_tg_reduce",
                 [&](auto* e) {
                   e->setBuffer(a.get(), 0, 0);
                   e->setBuffer(out.get(), 0, 1);
                 },
                 {2, 1, 1}, {kThreads, 1, 1});
  };
  Outcome o =
      compare_schedules(h, "planted_race_tg_reduce", dispatch, {{1, "out", out.get()}}, 4, log);
  for (auto& r : o.reports) {  // out[tg] is written by thread 0 of threadgroup tg
    r.has_lane = true;
    r.lane.threadgroup = {uint32_t(r.offset / 4), 0, 0};
    r.lane.thread = {0, 0, 0};
  }
  return o;
}

constexpr uint32_t kGroups = 8;

Outcome race_device_same_element(Harness& h, std::string* log = nullptr) {
  auto out = h.buffer((kGroups + 1) * 4 + 12);
  auto dispatch = [&]() -> const MTL::CommandBuffer* {
    std::memset(out->contents(), 0, out->length());
    return h.run("planted_race_device_same_element",
                 [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {kGroups, 1, 1}, {32, 1, 1});
  };
  Outcome o = compare_schedules(h, "planted_race_device_same_element", dispatch,
                                {{0, "out", out.get()}}, 4, log);
  for (auto& r : o.reports) r.other_lanes = "thread 0 of every threadgroup";
  return o;
}

Outcome race_device_ticket(Harness& h, std::string* log = nullptr) {
  auto counter = h.buffer(16);
  auto tickets = h.buffer(kGroups * 4);
  auto dispatch = [&]() -> const MTL::CommandBuffer* {
    std::memset(counter->contents(), 0, counter->length());
    std::memset(tickets->contents(), 0, tickets->length());
    return h.run("planted_race_device_ticket",
                 [&](auto* e) {
                   e->setBuffer(counter.get(), 0, 0);
                   e->setBuffer(tickets.get(), 0, 1);
                 },
                 {kGroups, 1, 1}, {32, 1, 1});
  };
  Outcome o =
      compare_schedules(h, "planted_race_device_ticket", dispatch,
                        {{0, "counter", counter.get()}, {1, "tickets", tickets.get()}}, 4, log);
  for (auto& r : o.reports) r.other_lanes = "thread 0 of every threadgroup";
  return o;
}

// The racecheck rows: one dispatch with checks.race on. ThreadSanitizer (tsan preset) needs two
// workers to see lanes of different threadgroups on different threads; the shadow racecheck
// sees every access, and one worker running in order makes the reported lanes fixed.
Outcome race_row(Harness& h, const char* kernel) {
  h.options().workers = checks::race::kEnabled ? 2 : 1;
  std::vector<float> in(4 * kThreads, 1.0f);
  auto a = h.buffer(in);
  auto b = h.buffer(4 * kThreads * 4);
  const std::string k = kernel;
  const bool device = k.find("device") != std::string::npos;
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            if (k == "planted_race_device_same_element") {
                              e->setBuffer(b.get(), 0, 0);
                            } else if (k == "planted_race_device_same_value" ||
                                       k == "planted_race_device_lanes") {
                              e->setBuffer(b.get(), 0, 0);
                              e->setBuffer(a.get(), 0, 1);
                            } else {
                              e->setBuffer(a.get(), 0, 0);
                              e->setBuffer(b.get(), 0, 1);
                            }
                          },
                          {device ? kGroups : 2u, 1, 1}, {device ? 32u : kThreads, 1, 1}));
}

// The missing barrier must change the result under the reversed schedule, not only under a
// lucky random one; two threadgroups writing one element must depend on the threadgroup order.
TEST(PlantedRace, ReversedScheduleChangesEveryRacyResult) {
  Harness h;
  h.options().workers = 1;
  for (auto fn :
       {&race_tg_reverse, &race_tg_reduce, &race_device_same_element, &race_device_ticket}) {
    std::string log;
    Outcome o = fn(h, &log);
    ASSERT_EQ(o.reports.size(), 1u) << log;
    EXPECT_NE(o.reports[0].message.find("under reversed"), std::string::npos) << o.text;
  }
}

// A correct kernel gives the same bytes under every schedule (the comparison itself is sound).
TEST(PlantedRace, CorrectKernelIsTheSameUnderEverySchedule) {
  Harness h;
  h.options().workers = 1;
  auto out = h.buffer(256 * 4);
  auto dispatch = [&]() -> const MTL::CommandBuffer* {
    std::memset(out->contents(), 0, out->length());
    return h.run("planted_ok", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {4, 1, 1},
                 {64, 1, 1});
  };
  Outcome o = compare_schedules(h, "planted_ok", dispatch, {{0, "out", out.get()}}, 4);
  EXPECT_TRUE(o.reports.empty()) << o.text;
}

// The race check stays silent on correct kernels: barriers order threadgroup memory, reads do
// not race with reads, atomics race with nothing (Metal's are relaxed), a simd function orders
// its simdgroup.
TEST(PlantedRace, CorrectKernelsHaveNoRace) {
  if (!report::check_implemented(report::CheckId::race_device))
    GTEST_SKIP() << "race reports need kernels built with the access-check pass or the tsan preset";
  Harness h;
  h.options().workers = 2;
  h.options().checks.race = true;
  constexpr uint32_t kLanes = 64;
  std::vector<float> in(kGroups * kLanes);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float((i * 7919) % 13);
  auto a = h.buffer(in);
  auto total = h.buffer(std::vector<uint32_t>{0, 0, 0, 0});
  auto partial = h.buffer(kGroups * 4);
  const MTL::CommandBuffer* cb = h.run("planted_ok_reduce",
                                       [&](auto* e) {
                                         e->setBuffer(a.get(), 0, 0);
                                         e->setBuffer(total.get(), 0, 1);
                                         e->setBuffer(partial.get(), 0, 2);
                                       },
                                       {kGroups, 1, 1}, {kLanes, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  ASSERT_TRUE(cb->reports().empty()) << Harness::reports(cb);
  double all = 0;
  for (uint32_t g = 0; g < kGroups; ++g) {
    double sum = 0;
    for (uint32_t i = 0; i < kLanes; ++i) sum += double(in[g * kLanes + i]);
    EXPECT_EQ(static_cast<const float*>(partial->contents())[g], float(sum)) << "threadgroup " << g;
    all += sum;
  }
  EXPECT_EQ(static_cast<const uint32_t*>(total->contents())[0], uint32_t(all));

  auto counter = h.buffer(std::vector<uint32_t>{0, 0, 0, 0});
  auto flags = h.buffer(kGroups * 32 * 4);
  cb = h.run("planted_race_atomics_ok",
             [&](auto* e) {
               e->setBuffer(counter.get(), 0, 0);
               e->setBuffer(flags.get(), 0, 1);
             },
             {kGroups, 1, 1}, {32, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  EXPECT_TRUE(cb->reports().empty()) << Harness::reports(cb);
  EXPECT_EQ(static_cast<const uint32_t*>(counter->contents())[0], kGroups * 32);
  for (uint32_t i = 0; i < kGroups * 32; ++i)
    ASSERT_EQ(static_cast<const uint32_t*>(flags->contents())[i], 1u) << "out[" << i << "]";
}

}  // namespace

void add_race_dispatchers(std::map<std::string, Dispatcher>& d) {
  d["planted_race_tg_reverse race.schedule"] = [](Harness& h) { return race_tg_reverse(h); };
  d["planted_race_tg_reduce race.schedule"] = [](Harness& h) { return race_tg_reduce(h); };
  d["planted_race_device_same_element race.schedule"] = [](Harness& h) {
    return race_device_same_element(h);
  };
  d["planted_race_device_ticket race.schedule"] = [](Harness& h) { return race_device_ticket(h); };
  for (const char* k :
       {"planted_race_tg_reverse", "planted_race_tg_reduce", "planted_race_tg_write_write",
        "planted_race_simdgroup_load", "planted_race_in_header"})
    d[std::string(k) + " race.threadgroup"] = [k](Harness& h) { return race_row(h, k); };
  for (const char* k : {"planted_race_device_same_element", "planted_race_device_ticket",
                        "planted_race_device_same_value", "planted_race_device_lanes"})
    d[std::string(k) + " race.device"] = [k](Harness& h) { return race_row(h, k); };
}

}  // namespace metalsim::testing::planted
