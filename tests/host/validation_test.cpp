// API misuse becomes a clear error naming the kernel, the argument and what was wrong; the
// kernel does not run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/hand_kernel.h"
#include "support/host_harness.h"

namespace metalsim::testing {
namespace {

void copy_scaled(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  const float scale = *buffer<const float>(a, 2);
  threadgroup<float>(a, 0)[lane.value(Builtin::thread_index_in_threadgroup).x] = scale;
  buffer<float>(a, 1)[i] = buffer<const float>(a, 0)[i] * scale;
}
HandKernel kernel("test_validation_copy",
                  {device_arg("in", 0, 4, true), device_arg("out", 1, 4),
                   constant_arg("scale", 2, 4), threadgroup_arg("scratch", 0, 4)},
                  &lane_loop<copy_scaled>);

struct Binding {
  bool bind_in = true, bind_out = true, bind_scale = true, bind_tg = true;
  NS::UInteger out_offset = 0;
  NS::UInteger tg_length = 1024;
  MTL::Size grid{4, 1, 1};
  MTL::Size tg{64, 1, 1};
  bool out_with_set_bytes = false;
};

MTL::CommandBuffer* dispatch(Harness& h, const Binding& b) {
  static std::vector<NS::SharedPtr<MTL::Buffer>> keep;
  auto in = h.buffer(256 * 4);
  auto out = h.buffer(256 * 4);
  keep = {in, out};
  const float scale = 2;
  return h.run(
      "test_validation_copy",
      [&](MTL::ComputeCommandEncoder* e) {
        if (b.bind_in) e->setBuffer(in.get(), 0, 0);
        if (b.bind_out && !b.out_with_set_bytes) e->setBuffer(out.get(), b.out_offset, 1);
        if (b.out_with_set_bytes) e->setBytes(&scale, 4, 1);
        if (b.bind_scale) e->setBytes(&scale, sizeof scale, 2);
        if (b.bind_tg) e->setThreadgroupMemoryLength(b.tg_length, 0);
      },
      b.grid, b.tg);
}

void expect_error(const MTL::CommandBuffer* cb, report::CheckId id, const std::string& words) {
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  ASSERT_FALSE(cb->reports().empty());
  const report::Report& r = cb->reports().front();
  EXPECT_EQ(r.check, id) << r.format();
  EXPECT_EQ(r.kernel, "test_validation_copy");
  EXPECT_NE(r.message.find(words), std::string::npos) << r.format();
  ASSERT_NE(cb->error(), nullptr);
  EXPECT_NE(std::string(cb->error()->localizedDescription()->utf8String()).find(words),
            std::string::npos);
}

TEST(Validation, AValidDispatchCompletes) {
  Harness h;
  auto* cb = dispatch(h, {});
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
}

TEST(Validation, MissingBufferNamesTheArgumentAndIndex) {
  Harness h;
  Binding b;
  b.bind_out = false;
  expect_error(dispatch(h, b), report::CheckId::api_unbound_buffer, "argument 'out' [[buffer(1)]]");
}

TEST(Validation, MissingThreadgroupLength) {
  Harness h;
  Binding b;
  b.bind_tg = false;
  expect_error(dispatch(h, b), report::CheckId::api_unbound_buffer,
               "setThreadgroupMemoryLength(bytes, 0)");
}

void ignores_threadgroup(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  buffer<float>(a, 1)[i] = buffer<const float>(a, 0)[i] * *buffer<const float>(a, 2);
}
HandKernel ignores_threadgroup_kernel("test_validation_unused_threadgroup",
                                      {device_arg("in", 0, 4, true), device_arg("out", 1, 4),
                                       constant_arg("scale", 2, 4),
                                       threadgroup_arg("scratch", 0, 4)},
                                      &lane_loop<ignores_threadgroup>);

// setThreadgroupMemoryLength(0, i) is valid, as in Metal (ggml's host code sets it for kernels
// that never touch their threadgroup argument): such a kernel runs and writes its output.
TEST(Validation, AZeroThreadgroupLengthIsValidForAKernelThatNeverTouchesIt) {
  Harness h;
  auto in = h.buffer(256 * 4), out = h.buffer(256 * 4);
  float* x = static_cast<float*>(in->contents());
  for (int i = 0; i < 256; ++i) x[i] = float(i) - 100.5f;
  std::fill_n(static_cast<float*>(out->contents()), 256, std::nanf(""));
  const float scale = 2;
  auto* cb = h.run("test_validation_unused_threadgroup",
                   [&](MTL::ComputeCommandEncoder* e) {
                     e->setBuffer(in.get(), 0, 0);
                     e->setBuffer(out.get(), 0, 1);
                     e->setBytes(&scale, sizeof scale, 2);
                     e->setThreadgroupMemoryLength(0, 0);
                   },
                   {4, 1, 1}, {64, 1, 1});  // 4 threadgroups of 64: the 256 elements
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << Harness::reports(cb);
  const float* y = static_cast<const float*>(out->contents());
  for (int i = 0; i < 256; ++i) EXPECT_EQ(y[i], (float(i) - 100.5f) * 2) << i;
}

// ... and a kernel that does touch a region of length 0 stops there with a memory report.
TEST(Validation, AKernelTouchingAZeroLengthThreadgroupRegionIsReported) {
  Harness h;
  Binding b;
  b.tg_length = 0;
  auto* cb = dispatch(h, b);
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  ASSERT_FALSE(cb->reports().empty());
  const report::Report& r = cb->reports().front();
  EXPECT_EQ(report::check_family(r.check), metalsim::CheckFamily::mem) << r.format();
  EXPECT_EQ(r.kernel, "test_validation_copy");
}

TEST(Validation, OffsetPastTheEnd) {
  Harness h;
  Binding b;
  b.out_offset = 4096;
  expect_error(dispatch(h, b), report::CheckId::api_offset, "past the end of its 1024-byte buffer");
}

TEST(Validation, MisalignedOffset) {
  Harness h;
  Binding b;
  b.out_offset = 6;
  expect_error(dispatch(h, b), report::CheckId::api_offset,
               "not a multiple of the 4-byte alignment");
}

TEST(Validation, ThreadgroupMemoryOverTheLimit) {
  Harness h;
  Binding b;
  b.tg_length = 48 * 1024;
  expect_error(dispatch(h, b), report::CheckId::limit_threadgroup_memory,
               "exceeds the device's 32768 bytes");
}

TEST(Validation, ThreadsPerThreadgroupOverTheLimit) {
  Harness h;
  Binding b;
  b.tg = {32, 33, 1};
  expect_error(dispatch(h, b), report::CheckId::limit_threads,
               "1056 exceeds the pipeline's maximum of 1024");
}

TEST(Validation, EmptyGrid) {
  Harness h;
  Binding b;
  b.grid = {4, 0, 1};
  expect_error(dispatch(h, b), report::CheckId::api_empty_grid, "has a zero dimension");
}

TEST(Validation, SetBytesOnAWritableBufferLosesWrites) {
  Harness h;
  Binding b;
  b.out_with_set_bytes = true;
  expect_error(dispatch(h, b), report::CheckId::api_wrong_kind, "writable device buffer");
}

TEST(Validation, MissingPipeline) {
  Harness h;
  auto queue = NS::TransferPtr(h.device()->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->dispatchThreadgroups({1, 1, 1}, {1, 1, 1});  // no setComputePipelineState
  enc->endEncoding();
  cb->commit();
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusError);
  EXPECT_NE(cb->reports().front().message.find("setComputePipelineState"), std::string::npos);
}

}  // namespace
}  // namespace metalsim::testing
