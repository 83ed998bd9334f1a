// The planted-bug suite: every row of planted_expectations.h is dispatched and must produce its
// report with the right check id, kernel, thread, threadgroup and .metal line; a correct
// dispatch right after it must complete.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <string_view>

#include "planted_support.h"
#include "simt/checks/race_annotations.h"
#include "simt/engine/dispatch.h"
#include "simt/engine/kernel_variants.h"
#include "simt/report/check_id.h"

namespace metalsim::testing::planted {

// gtest names a row by kernel and check, not by its bytes.
void PrintTo(const Expectation& e, std::ostream* os) { *os << e.kernel << " " << e.check; }

namespace {

using report::CheckId;

// ----------------------------------------------------------------------------- dispatchers

Outcome oob_device_read(Harness& h, const char* kernel = "planted_oob_device_read") {
  std::vector<float> in(64, 1.0f);
  auto a = h.buffer(in);
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                          },
                          {2, 1, 1}, {32, 1, 1}));
}

// 16 threads, each with a float local[8].
Outcome private_array(Harness& h, const char* kernel) {
  std::vector<float> in(16, 2.0f);
  auto a = h.buffer(in);
  auto out = h.buffer(16 * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                          },
                          {1, 1, 1}, {16, 1, 1}));
}

// One simdgroup loads an 8x8 block from element 8 of a 64-float buffer.
Outcome oob_simdgroup_load(Harness& h) {
  std::vector<float> in(64, 1.0f);
  auto a = h.buffer(in);
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run("planted_oob_simdgroup_load",
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                          },
                          {1, 1, 1}, {32, 1, 1}));
}

// A 101-float buffer bound at byte offset 4: 100 floats, 4 threadgroups of 25 threads; or, for
// the loops of bounds_loops.metal (`n` not null), one threadgroup of `threads` with *n at
// buffer(2).
Outcome oob_offset(Harness& h, const char* kernel, const uint32_t* n = nullptr,
                   uint32_t threads = 25) {
  std::vector<float> in(101);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i) * 0.5f + 1.0f;
  auto a = h.buffer(in);
  auto out = h.buffer(100 * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBuffer(a.get(), 4, 0);
                            e->setBuffer(out.get(), 0, 1);
                            if (n != nullptr) e->setBytes(n, sizeof *n, 2);
                          },
                          {n != nullptr ? 1u : 4u, 1, 1}, {threads, 1, 1}));
}

Outcome oob_loop(Harness& h, const char* kernel, uint32_t n, uint32_t threads) {
  return oob_offset(h, kernel, &n, threads);
}

// `kernel` reading setBytes `data` at buffer(0) with `threads` threads, writing one float each to
// buffer(1).
Outcome oob_set_bytes(Harness& h, const char* kernel, const std::vector<float>& data,
                      uint32_t threads) {
  auto out = h.buffer(threads * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBytes(data.data(), data.size() * sizeof(float), 0);
                            e->setBuffer(out.get(), 0, 1);
                          },
                          {1, 1, 1}, {threads, 1, 1}));
}

// setBytes of 3 floats read by 4 threads.
Outcome oob_bytes(Harness& h) {
  return oob_set_bytes(h, "planted_oob_bytes_read", {0.25f, -1.5f, 3.0f}, 4);
}

// setBytes of two packed_float3 read by 3 threads.
Outcome oob_packed(Harness& h) {
  return oob_set_bytes(h, "planted_oob_packed_read", {0.5f, -1.25f, 2.0f, 3.5f, 0.75f, -4.0f}, 3);
}

Outcome oob_device_write(Harness& h) {
  auto out = h.buffer(64 * 4);  // 16 x 4
  const uint32_t width = 16;
  return outcome_of(h.run("planted_oob_device_write",
                          [&](auto* e) {
                            e->setBuffer(out.get(), 0, 0);
                            e->setBytes(&width, 4, 1);
                          },
                          {1, 1, 1}, {16, 4, 1}));
}

Outcome oob_tg(Harness& h, const char* kernel, bool region) {
  std::vector<float> in(64, 2.0f);
  auto a = h.buffer(in);
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                            if (region) e->setThreadgroupMemoryLength(64 * 4, 0);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome barrier_after_return(Harness& h) {
  std::vector<float> in(64, 1.0f);
  auto a = h.buffer(in);
  auto out = h.buffer(64 * 4);
  const uint32_t n = 48;
  return outcome_of(h.run("planted_barrier_after_return",
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                            e->setBytes(&n, 4, 2);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome out_only(Harness& h, const char* kernel, uint32_t threads) {
  auto out = h.buffer(threads * 4);
  return outcome_of(
      h.run(kernel, [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {1, 1, 1}, {threads, 1, 1}));
}

Outcome divergent_data(Harness& h) {
  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i) in[i] = (i % 3 == 0) ? 1.0f : -1.0f;  // thread 0 takes the branch
  auto a = h.buffer(in);
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run("planted_divergent_data",
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome simd_multiply(Harness& h) {
  std::vector<float> m(64, 1.0f);
  auto a = h.buffer(m), b = h.buffer(m);
  auto c = h.buffer(64 * 4);
  return outcome_of(h.run("planted_simd_partial_multiply",
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(b.get(), 0, 1);
                            e->setBuffer(c.get(), 0, 2);
                          },
                          {1, 1, 1}, {32, 1, 1}));
}

Outcome simd_load(Harness& h) {
  std::vector<float> m(64, 1.0f);
  std::vector<uint32_t> flags(32, 1);
  for (int i = 0; i < 4; ++i) flags[i] = 0;  // lanes 0..3 skip the load
  auto a = h.buffer(m);
  auto f = h.buffer(flags);
  auto c = h.buffer(64 * 4);
  return outcome_of(h.run("planted_simd_partial_load",
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(f.get(), 0, 1);
                            e->setBuffer(c.get(), 0, 2);
                          },
                          {1, 1, 1}, {32, 1, 1}));
}

Outcome uninit_tg(Harness& h, const char* kernel, bool region) {
  std::vector<float> in(64, 3.0f);
  auto a = h.buffer(in);
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                            if (region) e->setThreadgroupMemoryLength(64 * 4, 0);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome uninit_output(Harness& h, const char* kernel) {
  std::vector<float> in(128, 1.0f);
  auto a = h.buffer(in);
  auto out = poisoned_buffer(h, 64);
  const uint32_t n = 64;
  const bool guard = std::string(kernel) == "planted_uninit_output_guard";
  Outcome o = outcome_of(h.run(
      kernel,
      [&](auto* e) {
        e->setBuffer(a.get(), 0, 0);
        e->setBuffer(out.get(), 0, 1);
        if (guard) e->setBytes(&n, 4, 2);
      },
      {guard ? 64u : 32u, 1, 1}, {32, 1, 1}, /*by_threads=*/true));
  report_unwritten(kernel, "out", 1, out.get(), 64, o.reports);
  o.text += o.reports.empty() ? "" : o.reports.back().format();
  return o;
}

Outcome limit(Harness& h, const char* kernel, uint32_t length) {
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBuffer(out.get(), 0, 0);
                            e->setThreadgroupMemoryLength(length, 0);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome api_copy(Harness& h, bool bind_out, NS::UInteger out_offset) {
  auto a = h.buffer(64 * 4), out = h.buffer(64 * 4);
  return outcome_of(h.run("planted_api_copy",
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            if (bind_out) e->setBuffer(out.get(), out_offset, 1);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome api_scale(Harness& h, bool bind_tg, NS::UInteger in_offset) {
  auto a = h.buffer(64 * 16 + 16), out = h.buffer(64 * 16);
  const float scale[4] = {1, 2, 3, 4};
  return outcome_of(h.run("planted_api_scale",
                          [&](auto* e) {
                            e->setBuffer(a.get(), in_offset, 0);
                            e->setBuffer(out.get(), 0, 1);
                            e->setBytes(scale, sizeof scale, 2);
                            if (bind_tg) e->setThreadgroupMemoryLength(64 * 16, 0);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome stack(Harness& h, const char* kernel) {
  std::vector<uint32_t> arg = {1u << 30, 17};
  auto a = h.buffer(arg);
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run(kernel,
                          [&](auto* e) {
                            e->setBuffer(a.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

// 64 divisors of 3, but thread 9's is 0.
Outcome divide_by_zero(Harness& h) {
  std::vector<uint32_t> divisors(64, 3);
  divisors[9] = 0;
  auto d = h.buffer(divisors);
  auto out = h.buffer(64 * 4);
  return outcome_of(h.run("planted_divide_by_zero",
                          [&](auto* e) {
                            e->setBuffer(d.get(), 0, 0);
                            e->setBuffer(out.get(), 0, 1);
                          },
                          {1, 1, 1}, {64, 1, 1}));
}

Outcome watchdog(Harness& h, const char* kernel) {
  h.options().watchdog_seconds = 0.3;
  std::vector<uint32_t> zero(4, 0);
  auto flag = h.buffer(zero);
  auto out = h.buffer(64 * 4);
  const bool spin = std::string(kernel) == "planted_watchdog_spin";
  Outcome o = outcome_of(h.run(kernel,
                               [&](auto* e) {
                                 if (spin) {
                                   e->setBuffer(flag.get(), 0, 0);
                                   e->setBuffer(out.get(), 0, 1);
                                 } else {
                                   e->setBuffer(out.get(), 0, 0);
                                 }
                               },
                               {1, 1, 1}, {64, 1, 1}));
  h.options().watchdog_seconds = 0;
  return o;
}

// Two 16x4 RGBA32Float textures (src pixel p holds p in every component), one threadgroup of
// 16x4 threads; `dst_pixels`, when given, receives dst's pixels after the run.
Outcome oob_texture(Harness& h, const char* kernel, std::vector<float>* dst_pixels = nullptr) {
  auto* d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatRGBA32Float, 16, 4, false);
  d->setUsage(MTL::TextureUsageShaderRead | MTL::TextureUsageShaderWrite);
  auto src = NS::TransferPtr(h.device()->newTexture(d));
  auto dst = NS::TransferPtr(h.device()->newTexture(d));
  std::vector<float> pixels(16 * 4 * 4);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = float(i / 4);
  src->replaceRegion(MTL::Region::Make2D(0, 0, 16, 4), 0, pixels.data(), 16 * 16);
  Outcome o = outcome_of(h.run(kernel,
                               [&](auto* e) {
                                 e->setTexture(src.get(), 0);
                                 e->setTexture(dst.get(), 1);
                               },
                               {1, 1, 1}, {16, 4, 1}));
  if (dst_pixels != nullptr) {
    dst_pixels->assign(pixels.size(), 0.0f);
    dst->getBytes(dst_pixels->data(), 16 * 16, MTL::Region::Make2D(0, 0, 16, 4), 0);
  }
  return o;
}

std::map<std::string, Dispatcher> make_dispatchers() {
  std::map<std::string, Dispatcher> d;
  d["planted_oob_device_read bounds.device"] = [](Harness& h) { return oob_device_read(h); };
  d["planted_oob_in_header bounds.device"] = [](Harness& h) {
    return oob_device_read(h, "planted_oob_in_header");
  };
  d["planted_oob_device_write bounds.device"] = oob_device_write;
  d["planted_oob_offset_read bounds.device"] = [](Harness& h) {
    return oob_offset(h, "planted_oob_offset_read");
  };
  d["planted_oob_before_offset bounds.device"] = [](Harness& h) {
    h.options().strict = true;  // the buffer's own bytes: reported under strict only
    return oob_offset(h, "planted_oob_before_offset");
  };
  d["planted_oob_bytes_read bounds.device"] = oob_bytes;
  d["planted_oob_packed_read bounds.device"] = oob_packed;
  d["planted_oob_loop_last bounds.device"] = [](Harness& h) {
    return oob_loop(h, "planted_oob_loop_last", 25, 4);
  };
  d["planted_oob_strided_far_end bounds.device"] = [](Harness& h) {
    return oob_loop(h, "planted_oob_strided_far_end", 100, 32);
  };
  d["planted_oob_strided_store bounds.device"] = [](Harness& h) {
    return oob_loop(h, "planted_oob_strided_store", 100, 32);
  };
  d["planted_oob_nested_last_row bounds.device"] = [](Harness& h) {
    return oob_loop(h, "planted_oob_nested_last_row", 5, 4);
  };
  d["planted_oob_rounds_last bounds.device"] = [](Harness& h) {
    return oob_loop(h, "planted_oob_rounds_last", 100, 32);
  };
  d["planted_texture_read_past_width bounds.texture"] = [](Harness& h) {
    return oob_texture(h, "planted_texture_read_past_width");
  };
  d["planted_texture_write_past_height bounds.texture"] = [](Harness& h) {
    return oob_texture(h, "planted_texture_write_past_height");
  };
  d["planted_oob_tg_odd_array bounds.threadgroup"] = [](Harness& h) {
    return oob_tg(h, "planted_oob_tg_odd_array", false);
  };
  d["planted_oob_tg_region bounds.threadgroup"] = [](Harness& h) {
    return oob_tg(h, "planted_oob_tg_region", true);
  };
  d["planted_oob_tg_array bounds.threadgroup"] = [](Harness& h) {
    return oob_tg(h, "planted_oob_tg_array", false);
  };
  d["planted_oob_tg_small_array bounds.threadgroup"] = [](Harness& h) {
    return oob_tg(h, "planted_oob_tg_small_array", false);
  };
  d["planted_barrier_after_return barrier.exited"] = barrier_after_return;
  d["planted_barrier_return_in_loop barrier.exited"] = [](Harness& h) {
    return out_only(h, "planted_barrier_return_in_loop", 64);
  };
  d["planted_divergent_if_else barrier.divergent"] = [](Harness& h) {
    return out_only(h, "planted_divergent_if_else", 64);
  };
  d["planted_divergent_data barrier.divergent"] = divergent_data;
  d["planted_simd_partial_multiply simd.partial"] = simd_multiply;
  d["planted_simd_partial_load simd.partial"] = simd_load;
  d["planted_uninit_tg_partial_fill uninit.threadgroup"] = [](Harness& h) {
    return uninit_tg(h, "planted_uninit_tg_partial_fill", false);
  };
  d["planted_uninit_simdgroup_load uninit.threadgroup"] = [](Harness& h) {
    return uninit_tg(h, "planted_uninit_simdgroup_load", false);
  };
  d["planted_oob_simdgroup_load bounds.device"] = oob_simdgroup_load;
  for (const PrivateIndex& p : kPrivateIndex)
    d[std::string(p.kernel) + " bounds.private"] = [k = p.kernel](Harness& h) {
      return private_array(h, k);
    };
  d["planted_uninit_tg_region_accumulate uninit.threadgroup"] = [](Harness& h) {
    return uninit_tg(h, "planted_uninit_tg_region_accumulate", true);
  };
  d["planted_uninit_output_guard uninit.output"] = [](Harness& h) {
    return uninit_output(h, "planted_uninit_output_guard");
  };
  d["planted_uninit_output_stride uninit.output"] = [](Harness& h) {
    return uninit_output(h, "planted_uninit_output_stride");
  };
  d["planted_limit_tg_dynamic limit.threadgroup_memory"] = [](Harness& h) {
    return limit(h, "planted_limit_tg_dynamic", 40960);
  };
  d["planted_limit_tg_static limit.threadgroup_memory"] = [](Harness& h) {
    return limit(h, "planted_limit_tg_static", 12288);
  };
  d["planted_api_copy api.unbound_buffer"] = [](Harness& h) { return api_copy(h, false, 0); };
  d["planted_api_scale api.unbound_buffer"] = [](Harness& h) { return api_scale(h, false, 0); };
  d["planted_api_copy api.offset"] = [](Harness& h) { return api_copy(h, true, 512); };
  d["planted_api_scale api.offset"] = [](Harness& h) { return api_scale(h, true, 4); };
  d["planted_stack_recursion stack.overflow"] = [](Harness& h) {
    return stack(h, "planted_stack_recursion");
  };
  d["planted_stack_big_array stack.overflow"] = [](Harness& h) {
    return stack(h, "planted_stack_big_array");
  };
  d["planted_divide_by_zero kernel.fault"] = [](Harness& h) { return divide_by_zero(h); };
  d["planted_watchdog_spin watchdog.timeout"] = [](Harness& h) {
    return watchdog(h, "planted_watchdog_spin");
  };
  d["planted_watchdog_step watchdog.timeout"] = [](Harness& h) {
    return watchdog(h, "planted_watchdog_step");
  };
  add_race_dispatchers(d);
  add_dispatch_dispatchers(d);
  return d;
}

// ----------------------------------------------------------------------------- availability

bool id_of(const std::string& name, CheckId& out) {
  for (uint32_t i = 0; i <= uint32_t(CheckId::api_misuse); ++i) {
    if (report::check_name(CheckId(i)) == name) {
      out = CheckId(i);
      return true;
    }
  }
  return false;
}

// Empty when the row can run in this build, else why not.
std::string unavailable(const Expectation& e) {
  CheckId id;
  if (!id_of(e.check, id))
    return std::string("check id '") + e.check + "' is not in simt/report/check_id.h";
  if (e.finder == Finder::race) {
    // A simdgroup_matrix load or store is made by the engine's combine for the whole simdgroup,
    // code ThreadSanitizer does not instrument: the tsan preset cannot see a race through it
    // (the shadow racecheck of the other builds records the combine's accesses for its lanes).
    if (checks::race::kEnabled && std::string_view(e.file) == "through_library.metal")
      return "ThreadSanitizer does not see accesses made by the engine's collective combine";
    if (id == CheckId::race_dispatch && !report::check_implemented(id))
      return "race.dispatch is the shadow racecheck's (ThreadSanitizer sees dispatches ordered, "
             "as metalsim runs them)";
    if (report::check_implemented(id)) return "";
    return "race reports need kernels built with the access-check pass or the tsan preset";
  }
  if (id == CheckId::uninit_threadgroup && !report::check_implemented(id))
    return "uninit.threadgroup (initcheck) is not implemented by the engine yet";
  return "";
}

// ----------------------------------------------------------------------------- the test

std::string row_name(const ::testing::TestParamInfo<Expectation>& info) {
  std::string s = std::string(info.param.kernel) + "_" + info.param.check;
  for (char& c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class Planted : public ::testing::TestWithParam<Expectation> {};

void expect_next_dispatch_runs(Harness& h) {
  auto out = h.buffer(128 * 4);
  auto* cb =
      h.run("planted_ok", [&](auto* e) { e->setBuffer(out.get(), 0, 0); }, {2, 1, 1}, {64, 1, 1});
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const auto* got = static_cast<const uint32_t*>(out->contents());
  for (uint32_t i = 0; i < 128; ++i) ASSERT_EQ(got[i], i + 1) << "planted_ok out[" << i << "]";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Runs row `e` in execution mode `mode` and checks its report.
void expect_reported(const Expectation& e, metalsim::ExecutionMode mode) {
  const auto& all = dispatchers();
  const auto it = all.find(std::string(e.kernel) + " " + e.check);
  ASSERT_NE(it, all.end()) << "no dispatcher for " << e.kernel << " " << e.check;

  const uint32_t line = marker_line(e.file, e.kernel);
  if (e.has_line) {
    ASSERT_NE(line, 0u) << "no '// PLANT: " << e.kernel << "' in " << e.file;
  }
  const uint32_t line2 = e.other_line ? marker_line(e.file, e.kernel, "PLANT2") : 0;
  if (e.other_line) {
    ASSERT_NE(line2, 0u) << "no '// PLANT2: " << e.kernel << "' in " << e.file;
  }

  Harness h;
  h.options().workers = 1;  // which lane faults first is then fixed
  h.options().mode = mode;
  if (e.finder == Finder::race) {
    h.options().checks.race = true;
  }
  const uint64_t loops_before = engine::lane_loop_threadgroups_total();
  const uint64_t fast_before = engine::variant_dispatches_total(metalsim::KernelVariant::fast);
  Outcome o = it->second(h);
  ASSERT_TRUE(o.ran);
  // Every row runs with mem on (the default), so with the checked variant (issue 23 item 1).
  EXPECT_EQ(engine::variant_dispatches_total(metalsim::KernelVariant::fast), fast_before)
      << "a dispatch with mem on ran the fast variant";
  if (mode == metalsim::ExecutionMode::loops && e.finder == Finder::engine && e.has_lane) {
    EXPECT_GT(engine::lane_loop_threadgroups_total(), loops_before) << "ran on fibers";
  }

  // The report of this check; where several (a partial collective reports each site), the one
  // on the planted line.
  const report::Report* r = nullptr;
  for (const auto& rep : o.reports) {
    if (report::check_name(rep.check) != e.check) continue;
    if (r == nullptr) r = &rep;
    if (e.has_line && rep.site.line >= line && rep.site.line <= line + e.line_slack) {
      r = &rep;
      break;
    }
  }
  ASSERT_NE(r, nullptr) << "no " << e.check << " report; got:\n" << o.text;
  const std::string text = r->format();
  EXPECT_EQ(r->kernel, e.kernel) << text;
  EXPECT_EQ(report::severity_name(r->severity()), e.severity) << text;
  if (e.finder == Finder::engine) {
    // An error ends the command buffer; a warning alone lets it complete, the report kept.
    const bool warning = std::string(e.severity) == "warning";
    EXPECT_EQ(o.status, warning ? MTL::CommandBufferStatusCompleted : MTL::CommandBufferStatusError)
        << text;
  }
  if (e.has_lane) {
    EXPECT_TRUE(r->has_lane) << text;
    // ThreadSanitizer's rows run on two workers and name whichever lane it saw second: the
    // shadow racecheck's run on one, in order, and name the row's lanes.
    const bool tsan_row = e.finder == Finder::race && checks::race::kEnabled;
    if (!tsan_row) {
      EXPECT_EQ(r->lane.threadgroup, e.threadgroup) << text;
    }
    // Lane loops name the thread where one lane was running (Report::thread_known).
    if (!tsan_row && r->thread_known) {
      EXPECT_EQ(r->lane.thread, e.thread) << text;
    }
    if (mode == metalsim::ExecutionMode::fibers || mode == metalsim::ExecutionMode::automatic) {
      EXPECT_TRUE(r->thread_known) << text;
    }
  }
  if (e.has_line) {
    // The .metal file itself (kernels carry DWARF 4 line tables: see cmake/MetalsimMetal.cmake).
    EXPECT_TRUE(ends_with(r->site.file, "/" + std::string(e.file))) << text;
  }

  if (e.has_line && !e.other_line) {
    EXPECT_GE(r->site.line, line) << text;
    EXPECT_LE(r->site.line, line + e.line_slack) << text;
  }
  if (e.has_line && !e.other_line && e.finder == Finder::race) {
    // Both accesses of a race on the marked lines (a read and a write on one line).
    EXPECT_TRUE(ends_with(r->other_site.file, "/" + std::string(e.file))) << text;
    EXPECT_GE(r->other_site.line, line) << text;
    EXPECT_LE(r->other_site.line, line + e.line_slack) << text;
  }
  if (e.other_line) {
    EXPECT_TRUE(ends_with(r->other_site.file, "/" + std::string(e.file))) << text;
    // The two sites, in either order.
    const bool both = (r->site.line == line && r->other_site.line == line2) ||
                      (r->site.line == line2 && r->other_site.line == line);
    EXPECT_TRUE(both) << "expected lines " << line << " and " << line2 << "\n" << text;
  }
  if (const char* header = library_header(e.kernel)) {
    // The report names the user's line above (the .metal call), the header's as a second line.
    EXPECT_TRUE(ends_with(r->library_site.file, "/" + std::string(header))) << text;
    EXPECT_NE(text.find("    in metalsim's " + std::string(header) + ":"), std::string::npos)
        << text;
  }
  if (e.memory != nullptr) {
    EXPECT_NE(r->memory.find(e.memory), std::string::npos) << text;
  }
  for (const PrivateIndex& p : kPrivateIndex)
    if (std::string(e.kernel) == p.kernel && std::string(e.check) == "bounds.private") {
      EXPECT_NE(text.find("of element " + std::to_string(p.index) + " of a private array of 8"),
                std::string::npos)
          << text;
    }
  if (e.offset != kAnyOffset) {
    EXPECT_TRUE(r->has_offset) << text;
    EXPECT_EQ(r->offset, e.offset) << text;
  }
  if (::testing::Test::HasFailure() || std::getenv("METALSIM_PLANTED_PRINT"))
    std::printf("%s", o.text.c_str());

  // The process goes on, the device too.
  h.options() = metalsim::ExecutionOptions{};
  h.options().checks = metalsim::CheckSet::all();
  h.options().checks.race = false;
  expect_next_dispatch_runs(h);
}

TEST_P(Planted, IsReported) {
  const Expectation& e = GetParam();
  const std::string why = unavailable(e);
  if (!why.empty()) GTEST_SKIP() << why;
  expect_reported(e, metalsim::ExecutionMode::automatic);
}

// The same rows with the kernels in lane loops (docs/lanes.md): every check but the schedule
// comparison and ThreadSanitizer's reports as on fibers, the thread named where one lane ran.
TEST_P(Planted, IsReportedInLaneLoops) {
  const Expectation& e = GetParam();
  std::string why = unavailable(e);
  if (e.finder == Finder::schedules || e.finder == Finder::race)
    why = "schedule comparison and racecheck order lanes: they run on fibers";
  if (!why.empty()) GTEST_SKIP() << why;
  expect_reported(e, metalsim::ExecutionMode::loops);
}

INSTANTIATE_TEST_SUITE_P(Table, Planted, ::testing::ValuesIn(kTable), row_name);

// ------------------------------------------------------------------- the two kernel variants

// Dispatches of the fast variant made by `run`.
template <class Run>
uint64_t fast_dispatches(Run run) {
  const uint64_t before = engine::variant_dispatches_total(metalsim::KernelVariant::fast);
  run();
  return engine::variant_dispatches_total(metalsim::KernelVariant::fast) - before;
}

// With mem, race and init off a dispatch runs the fast variant, which has no access checks; the
// sync check still finds a divergent barrier there, in either mode: the engine's sync points
// find it, not the access-check pass (docs/architecture.md, "Two variants of every kernel").
TEST(PlantedVariants, TheFastVariantStillReportsADivergentBarrier) {
  if (!engine::fast_variants_built()) GTEST_SKIP() << "kernels built without the access-check pass";
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    Harness h;
    h.options().mode = mode;
    h.options().checks = metalsim::CheckSet::none();
    h.options().checks.sync = true;
    Outcome o;
    EXPECT_EQ(fast_dispatches([&] { o = out_only(h, "planted_divergent_if_else", 64); }), 1u);
    ASSERT_EQ(o.reports.size(), 1u) << o.text;
    EXPECT_EQ(o.reports[0].check, CheckId::barrier_divergent) << o.text;
    // Both barriers, in either order, as the checked variant names them.
    const uint32_t a = marker_line("barrier_divergent.metal", "planted_divergent_if_else");
    const uint32_t b =
        marker_line("barrier_divergent.metal", "planted_divergent_if_else", "PLANT2");
    const report::Report& r = o.reports[0];
    EXPECT_TRUE((r.site.line == a && r.other_site.line == b) ||
                (r.site.line == b && r.other_site.line == a))
        << "expected lines " << a << " and " << b << "\n"
        << o.text;
  }
}

// Guard pages are the fast variant's bounds: the last thread's read one float past a 64-float
// buffer lands on the guard page after it, and is bounds.device at byte 256 on the planted line
// in either mode, as the checked variant reports it.
// The same read in a kernel whose body lies in a header names the header's line.
TEST(PlantedVariants, GuardPagesStillCatchAReadPastTheEndInTheFastVariant) {
  if (!engine::fast_variants_built()) GTEST_SKIP() << "kernels built without the access-check pass";
  for (const auto& [kernel, file] : {std::pair{"planted_oob_device_read", "bounds_device.metal"},
                                     std::pair{"planted_oob_in_header", "kernel_in_header.h"}}) {
    const uint32_t line = marker_line(file, kernel);
    for (metalsim::ExecutionMode mode :
         {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
      Harness h;
      h.options().mode = mode;
      h.options().workers = 1;
      h.options().checks = metalsim::CheckSet::none();
      Outcome o;
      EXPECT_EQ(fast_dispatches([&] { o = oob_device_read(h, kernel); }), 1u);
      ASSERT_EQ(o.reports.size(), 1u) << o.text;
      const report::Report& r = o.reports[0];
      EXPECT_EQ(r.check, CheckId::bounds_device) << o.text;
      EXPECT_EQ(r.offset, 256) << o.text;
      EXPECT_EQ(r.site.line, line) << o.text;
      EXPECT_TRUE(ends_with(r.site.file, "/" + std::string(file))) << o.text;
      // A template kernel's body in a header: no .metal frame calls it (the front's entry is
      // at the template's declaration), so no line is named second.
      EXPECT_FALSE(r.metal_call.known()) << o.text;
    }
  }
}

// A SIGSEGV handler the program installs after metalsim's (doctest installs its crash handler at
// every test case) must not take a kernel's guard-page fault: the next command buffer puts
// metalsim's handler back in front, and a fault that is not a kernel's still reaches the
// program's handler.
// A handler as a program installs one.
struct sigaction program_handler(void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa{};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  return sa;
}

// `run` (a planted kernel's dispatch) files exactly one report, of kind `check`, in both modes.
void expect_one_report_in_both_modes(Harness& h, Outcome (*run)(Harness&), CheckId check) {
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    h.options().mode = mode;
    const Outcome o = run(h);
    ASSERT_EQ(o.reports.size(), 1u) << o.text;
    EXPECT_EQ(o.reports[0].check, check) << o.text;
  }
}

std::atomic<int> program_handler_calls{0};
void program_segv_handler(int, siginfo_t*, void*) {
  ++program_handler_calls;
  signal(SIGSEGV, SIG_DFL);  // not expected to run from a kernel: then end as the program would
}

TEST(PlantedFaults, AHandlerInstalledAfterTheFirstDispatchDoesNotTakeAKernelsFault) {
  Harness h;
  h.options().mode = metalsim::ExecutionMode::fibers;
  h.options().checks = metalsim::CheckSet::none();   // the fast variant: the guard page finds it
  ASSERT_EQ(oob_device_read(h).reports.size(), 1u);  // metalsim's handlers are installed now
  const struct sigaction program = program_handler(&program_segv_handler);
  struct sigaction before{};
  ASSERT_EQ(sigaction(SIGSEGV, &program, &before), 0);
  expect_one_report_in_both_modes(
      h, [](Harness& harness) { return oob_device_read(harness); }, CheckId::bounds_device);
  EXPECT_EQ(program_handler_calls.load(), 0);
  // metalsim's handler is in front again and passes a fault that is not a kernel's on.
  struct sigaction now{};
  sigaction(SIGSEGV, nullptr, &now);
  EXPECT_NE(now.sa_sigaction, &program_segv_handler);
  raise(SIGSEGV);
  EXPECT_EQ(program_handler_calls.load(), 1);
  sigaction(SIGSEGV, &before, nullptr);  // metalsim's, which chains to the program's
}

// A program's crash handlers come as a set (SIGSEGV, SIGBUS and SIGFPE together): the next
// command buffer, which reads only SIGSEGV's handler when it is still metalsim's, sees it replaced
// and puts all three back, so a division trap is still the kernel's fault, in both modes.
std::atomic<int> program_crash_handler_calls{0};
void program_crash_handler(int sig, siginfo_t*, void*) {
  ++program_crash_handler_calls;
  signal(sig, SIG_DFL);  // not expected to run: then end as the program would
}

TEST(PlantedFaults, ADivisionTrapAfterTheProgramReplacedEveryHandlerIsStillReported) {
  Harness h;
  h.options().checks = metalsim::CheckSet::none();
  ASSERT_EQ(divide_by_zero(h).reports.size(), 1u);  // metalsim's handlers are installed now
  const struct sigaction program = program_handler(&program_crash_handler);
  struct sigaction before[3]{};
  const int signals[3] = {SIGSEGV, SIGBUS, SIGFPE};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(sigaction(signals[i], &program, &before[i]), 0);
  expect_one_report_in_both_modes(h, &divide_by_zero, CheckId::kernel_fault);
  EXPECT_EQ(program_crash_handler_calls.load(), 0);
  for (int i = 0; i < 3; ++i) {
    struct sigaction now{};
    sigaction(signals[i], nullptr, &now);
    EXPECT_NE(now.sa_sigaction, &program_crash_handler) << "signal " << signals[i];
    sigaction(signals[i], &before[i], nullptr);  // metalsim's, which chains to the program's
  }
}

// Byte-precise bounds are the checked variant's: a read of the 4 bytes before a bound offset
// (inside the buffer: no guard page there) is bounds.device with mem on under strict, in either
// mode, and goes unseen in the fast variant, which runs with mem off and reads the buffer's first
// float.
TEST(PlantedVariants, OnlyTheCheckedVariantChecksBytes) {
  if (!engine::fast_variants_built()) GTEST_SKIP() << "kernels built without the access-check pass";
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    Harness checked;
    checked.options().mode = mode;
    checked.options().strict = true;
    checked.options().checks = metalsim::CheckSet::none();
    checked.options().checks.sync = checked.options().checks.mem = true;  // the defaults
    Outcome o;
    EXPECT_EQ(fast_dispatches([&] { o = oob_offset(checked, "planted_oob_before_offset"); }), 0u);
    ASSERT_EQ(o.reports.size(), 1u) << o.text;
    EXPECT_EQ(o.reports[0].check, CheckId::bounds_device) << o.text;
    EXPECT_EQ(o.reports[0].offset, -4) << o.text;

    Harness fast;
    fast.options().mode = mode;
    fast.options().checks = metalsim::CheckSet::none();
    fast.options().checks.sync = true;
    EXPECT_EQ(fast_dispatches([&] { o = oob_offset(fast, "planted_oob_before_offset"); }), 1u);
    EXPECT_EQ(o.status, MTL::CommandBufferStatusCompleted) << o.text;
    EXPECT_TRUE(o.reports.empty()) << o.text;
  }
}

// A barrier that some threads returned before still orders the live threads' accesses for the
// race check: planted_barrier_after_return's threads 0..47 write tile[tid], wait, then read
// tile[tid ^ 1]; only barrier.exited is reported (MLX's fft kernels return early before their
// barriers: docs/mlx_backend.md).
TEST(PlantedRaceAcrossAnExitedBarrier, TheLiveThreadsStillSynchronize) {
  if (!report::check_implemented(report::CheckId::race_threadgroup))
    GTEST_SKIP() << "the shadow racecheck is not in this build";
  Harness h;
  h.options().mode = metalsim::ExecutionMode::fibers;
  h.options().checks.race = true;
  const Outcome o = barrier_after_return(h);
  ASSERT_FALSE(o.reports.empty()) << o.text;
  for (const report::Report& r : o.reports) EXPECT_EQ(r.check, CheckId::barrier_exited) << o.text;
}

// Without strict a buffer's bytes before its bound offset are the buffer's, as on Metal: MLX
// binds an array at its offset and indexes backwards with negative strides (a reversed slice).
// The same read of in[-1] is then no report, and reads the buffer's first float.
TEST(BoundOffsets, BytesBeforeABoundOffsetAreTheBuffersOwnUnlessStrict) {
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    Harness h;  // every check but race on
    h.options().mode = mode;
    const Outcome o = oob_offset(h, "planted_oob_before_offset");
    EXPECT_EQ(o.status, MTL::CommandBufferStatusCompleted) << o.text;
    EXPECT_TRUE(o.reports.empty()) << o.text;
    Harness strict;
    strict.options().mode = mode;
    strict.options().strict = true;
    const Outcome s = oob_offset(strict, "planted_oob_before_offset");
    ASSERT_EQ(s.reports.size(), 1u) << s.text;
    EXPECT_EQ(s.reports[0].check, CheckId::bounds_device) << s.text;
    EXPECT_EQ(s.reports[0].offset, -4) << s.text;
  }
}

// bounds.texture: exactly one report per planted kernel in either mode (the lane stops at the
// first access outside, and the dispatch with it), on the marked line.
TEST(PlantedTexture, ExactlyOneReportInEitherMode) {
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    for (const char* kernel :
         {"planted_texture_read_past_width", "planted_texture_write_past_height"}) {
      Harness h;
      h.options().mode = mode;
      const Outcome o = oob_texture(h, kernel);
      size_t count = 0;
      for (const report::Report& r : o.reports) {
        if (r.check != CheckId::bounds_texture) continue;
        ++count;
        EXPECT_EQ(r.site.line, marker_line("bounds_texture.metal", kernel)) << o.text;
        EXPECT_TRUE(r.thread_known) << o.text;
      }
      EXPECT_EQ(count, 1u) << kernel << "\n" << o.text;
      EXPECT_EQ(o.reports.size(), 1u) << o.text;
    }
  }
}

// With the mem check off nothing is reported, a read outside returns a zero pixel and a write
// outside is dropped: no byte outside the texture is touched.
TEST(PlantedTexture, MemCheckOffReadsZeroAndDropsTheWrite) {
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    Harness h;
    h.options().mode = mode;
    h.options().checks.mem = false;
    std::vector<float> dst;
    Outcome o = oob_texture(h, "planted_texture_read_past_width", &dst);
    EXPECT_EQ(o.status, MTL::CommandBufferStatusCompleted) << o.text;
    for (int y = 0; y < 4; ++y)
      for (int c = 0; c < 4; ++c) {
        const float p = float(y * 16 + 15);
        EXPECT_EQ(dst[size_t((y * 16 + 15) * 4 + c)], 0.0f - p) << "row " << y;
        EXPECT_EQ(dst[size_t((y * 16 + 3) * 4 + c)], 1.0f) << "row " << y;
      }
    o = oob_texture(h, "planted_texture_write_past_height", &dst);
    EXPECT_EQ(o.status, MTL::CommandBufferStatusCompleted) << o.text;
    for (int x = 0; x < 16; ++x) {
      EXPECT_EQ(dst[size_t(x * 4)], 0.0f);                  // row 0: its writer wrote row 4
      EXPECT_EQ(dst[size_t((16 + x) * 4)], float(48 + x));  // row 1 from row 3
    }
  }
}

// Every planted kernel is in the table and every row's kernel has a dispatcher: the table is the
// suite.
TEST(PlantedTable, EveryRowHasAMarkerAndADispatcher) {
  const auto& all = dispatchers();
  for (const Expectation& e : kTable) {
    if (e.has_line) {
      EXPECT_NE(marker_line(e.file, e.kernel), 0u) << e.kernel;
    }
    EXPECT_NE(all.find(std::string(e.kernel) + " " + e.check), all.end())
        << e.kernel << " " << e.check;
  }
}

// Fault reports (bounds.*, stack.overflow, watchdog.timeout) are symbolised by addr2line. With
// GCC 12's default DWARF 5, binutils 2.40's addr2line names the generated <file>.metal.cpp;
// kernels are therefore built with -gdwarf-4 (cmake/MetalsimMetal.cmake) and name the .metal file.
// A .metal kernel's helper in a header of the user's: the report names the helper's line, and the
// kernel's .metal line that called it second ("called from"), in both modes and both variants.
TEST(PlantedLines, AHelperInAHeaderIsNamedWithTheMetalLineThatCalledIt) {
  const uint32_t helper = marker_line("kernel_in_header.h", "planted_oob_helper_in_header");
  const uint32_t call =
      marker_line("kernel_in_header.metal", "planted_oob_helper_in_header", "CALL");
  ASSERT_NE(helper, 0u);
  ASSERT_NE(call, 0u);
  for (metalsim::ExecutionMode mode :
       {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
    for (bool checked : {true, false}) {
      Harness h;
      h.options().mode = mode;
      h.options().workers = 1;
      if (!checked) h.options().checks = metalsim::CheckSet::none();  // the fast variant
      const Outcome o = oob_device_read(h, "planted_oob_helper_in_header");
      ASSERT_EQ(o.reports.size(), 1u) << o.text;
      const report::Report& r = o.reports[0];
      EXPECT_EQ(r.check, CheckId::bounds_device) << o.text;
      EXPECT_TRUE(ends_with(r.site.file, "/kernel_in_header.h")) << o.text;
      EXPECT_EQ(r.site.line, helper) << o.text;
      EXPECT_TRUE(ends_with(r.metal_call.file, "/kernel_in_header.metal")) << o.text;
      EXPECT_EQ(r.metal_call.line, call) << o.text;
      EXPECT_NE(r.format().find("    called from " + r.metal_call.str()), std::string::npos)
          << o.text;
    }
  }
}

TEST(PlantedLines, FaultReportsNameTheMetalFile) {
  Harness h;
  h.options().workers = 1;
  Outcome o = oob_device_read(h);
  ASSERT_FALSE(o.reports.empty());
  const report::Report& r = o.reports.front();
  ASSERT_EQ(r.site.line, marker_line("bounds_device.metal", "planted_oob_device_read")) << o.text;
  EXPECT_TRUE(ends_with(r.site.file, "/bounds_device.metal")) << o.text;
}

}  // namespace

const std::map<std::string, Dispatcher>& dispatchers() {
  static const std::map<std::string, Dispatcher> all = make_dispatchers();
  return all;
}

}  // namespace metalsim::testing::planted
