// Logging from kernels (<metal_logging>, docs/logging.md): os_log and printf lines reach an
// MTL::LogState's handlers prefixed with the kernel, threadgroup and thread; one lane's lines
// keep their order; the log is the same for every worker count and in both execution modes under
// the in-order schedule; levels filter; without a log state the lines go to stderr.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "metalsim/Metal.hpp"

namespace {

struct Captured {
  std::string subsystem, category, message;
  MTL::LogLevel level;
};

class Logging : public ::testing::Test {
 protected:
  NS::SharedPtr<MTL::Device> device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  NS::SharedPtr<MTL::CommandQueue> queue = NS::TransferPtr(device->newCommandQueue());
  NS::SharedPtr<MTL::Library> library = NS::TransferPtr(device->newDefaultLibrary());

  NS::SharedPtr<MTL::ComputePipelineState> pipeline(const char* name) {
    auto fn = NS::TransferPtr(library->newFunction(name));
    NS::Error* error = nullptr;
    return NS::TransferPtr(device->newComputePipelineState(fn.get(), &error));
  }

  // A log state collecting every line it is handed into `lines`.
  NS::SharedPtr<MTL::LogState> collector(std::vector<Captured>& lines,
                                         MTL::LogLevel level = MTL::LogLevelUndefined) {
    auto desc = NS::TransferPtr(MTL::LogStateDescriptor::alloc()->init());
    desc->setLevel(level);
    NS::Error* error = nullptr;
    auto state = NS::TransferPtr(device->newLogState(desc.get(), &error));
    state->addLogHandler([&lines](NS::String* subsystem, NS::String* category, MTL::LogLevel lvl,
                                  NS::String* message) {
      lines.push_back(
          {subsystem->utf8String(), category->utf8String(), message->utf8String(), lvl});
    });
    return state;
  }

  // log_sums over `groups` threadgroups of `n` threads, its lines handed to `state`.
  MTL::CommandBuffer* run_sums(uint32_t groups, uint32_t n, MTL::LogState* state,
                               metalsim::ExecutionOptions options = {}) {
    std::vector<float> x(groups * n);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * float(i % 7) - 0.5f;
    in = NS::TransferPtr(device->newBuffer(x.data(), x.size() * 4, MTL::ResourceStorageModeShared));
    out = NS::TransferPtr(device->newBuffer(groups * 4, MTL::ResourceStorageModeShared));
    auto desc = NS::TransferPtr(MTL::CommandBufferDescriptor::alloc()->init());
    desc->setLogState(state);
    desc->setExecutionOptions(options);
    MTL::CommandBuffer* cb = queue->commandBuffer(desc.get());
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pipeline("log_sums").get());
    enc->setBuffer(in.get(), 0, 0);
    enc->setBuffer(out.get(), 0, 1);
    enc->setThreadgroupMemoryLength((n * 4 + 15) & ~15u, 0);
    enc->dispatchThreadgroups(MTL::Size(groups, 1, 1), MTL::Size(n, 1, 1));
    enc->endEncoding();
    cb->commit();
    cb->waitUntilCompleted();
    return cb;
  }

  NS::SharedPtr<MTL::Buffer> in, out;
};

std::vector<std::string> messages(const std::vector<Captured>& lines) {
  std::vector<std::string> out;
  for (const Captured& c : lines) out.push_back(c.message);
  return out;
}

TEST_F(Logging, LinesArePrefixedWithKernelThreadgroupAndThread) {
  std::vector<Captured> lines;
  auto state = collector(lines);
  MTL::CommandBuffer* cb = run_sums(2, 4, state.get());
  ASSERT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  ASSERT_EQ(lines.size(), 2u * (4 + 1 + 4));
  EXPECT_EQ(lines[0].message, "[log_sums tg(0,0,0) thread(0,0,0)] before 0: -0.50");
  EXPECT_EQ(lines[0].subsystem, "");
  EXPECT_EQ(lines[0].level, MTL::LogLevelNotice);
  // Threadgroup 1, thread 2: x[6] = 0.25 * 6 - 0.5.
  EXPECT_EQ(lines[9 + 2].message, "[log_sums tg(1,0,0) thread(2,0,0)] before 2: 1.00");
  // The custom log's line: its subsystem, category and level.
  EXPECT_EQ(lines[4].message, "[log_sums tg(0,0,0) thread(0,0,0)] sum -0.500");
  EXPECT_EQ(lines[4].subsystem, "com.example.logging");
  EXPECT_EQ(lines[4].category, "sums");
  EXPECT_EQ(lines[4].level, MTL::LogLevelInfo);
  EXPECT_EQ(lines[5].message, "[log_sums tg(0,0,0) thread(0,0,0)] after 0");
  EXPECT_EQ(cb->logs().size(), lines.size());
}

TEST_F(Logging, EachLanesLinesStayInOrder) {
  std::vector<Captured> lines;
  auto state = collector(lines);
  run_sums(3, 64, state.get());
  const std::regex line(R"(\[log_sums tg\((\d+),0,0\) thread\((\d+),0,0\)\] (before|sum|after).*)");
  std::map<std::pair<int, int>, std::string> seen;  // (tg, thread) -> what it logged, in order
  for (const Captured& c : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(c.message, m, line)) << c.message;
    seen[{std::stoi(m[1]), std::stoi(m[2])}] += m[3].str() + ";";
  }
  ASSERT_EQ(seen.size(), 3u * 64);
  for (const auto& [lane, order] : seen)
    EXPECT_EQ(order, lane.second == 0 ? "before;sum;after;" : "before;after;") << lane.second;
}

TEST_F(Logging, TheLogIsTheSameForEveryWorkerCountAndMode) {
  std::vector<std::vector<std::string>> logs;
  for (uint32_t workers : {1u, 2u, 4u})
    for (auto mode : {metalsim::ExecutionMode::fibers, metalsim::ExecutionMode::loops}) {
      std::vector<Captured> lines;
      auto state = collector(lines);
      metalsim::ExecutionOptions options;
      options.workers = workers;
      options.mode = mode;
      metalsim::CheckSet::parse("sync", options.checks);
      MTL::CommandBuffer* cb = run_sums(5, 33, state.get(), options);
      EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted) << cb->reports().size();
      logs.push_back(messages(lines));
    }
  for (const auto& log : logs) EXPECT_EQ(log, logs.front());
  EXPECT_EQ(logs.front().size(), 5u * (33 + 1 + 33));
}

TEST_F(Logging, TheLevelFilters) {
  std::vector<Captured> info, errors;
  auto info_state = collector(info, MTL::LogLevelInfo);
  auto error_state = collector(errors, MTL::LogLevelError);
  run_sums(2, 4, info_state.get());
  run_sums(2, 4, error_state.get());
  EXPECT_EQ(info.size(), 2u * 9);  // notice and info pass Info
  EXPECT_TRUE(errors.empty());
}

TEST_F(Logging, PositionsOfPartialThreadgroups) {
  std::vector<Captured> lines;
  auto state = collector(lines);
  auto buf = NS::TransferPtr(device->newBuffer(5 * 3 * 4, MTL::ResourceStorageModeShared));
  auto desc = NS::TransferPtr(MTL::CommandBufferDescriptor::alloc()->init());
  desc->setLogState(state.get());
  MTL::CommandBuffer* cb = queue->commandBuffer(desc.get());
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pipeline("log_positions").get());
  enc->setBuffer(buf.get(), 0, 0);
  enc->dispatchThreads(MTL::Size(5, 3, 1), MTL::Size(4, 2, 1));
  enc->endEncoding();
  cb->commit();
  ASSERT_EQ(lines.size(), 15u);
  const std::regex line(
      R"(\[log_positions tg\((\d+),(\d+),0\) thread\((\d+),(\d+),0\)\] gid (\d+),(\d+))");
  for (const Captured& c : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(c.message, m, line)) << c.message;
    EXPECT_EQ(std::stoi(m[5]), std::stoi(m[1]) * 4 + std::stoi(m[3])) << c.message;
    EXPECT_EQ(std::stoi(m[6]), std::stoi(m[2]) * 2 + std::stoi(m[4])) << c.message;
    EXPECT_EQ(c.level, MTL::LogLevelDebug);
  }
}

TEST_F(Logging, WithoutALogStateLinesGoToStderr) {
  ::testing::internal::CaptureStderr();
  MTL::CommandBuffer* cb = run_sums(1, 2, nullptr);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(cb->logs().size(), 5u);
  EXPECT_NE(err.find("[log_sums tg(0,0,0) thread(1,0,0)] after 1\n"), std::string::npos) << err;
}

TEST_F(Logging, ALogStateNeedsAKilobyte) {
  auto desc = NS::TransferPtr(MTL::LogStateDescriptor::alloc()->init());
  desc->setBufferSize(512);
  NS::Error* error = nullptr;
  EXPECT_EQ(device->newLogState(desc.get(), &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LogStateErrorInvalidSize);
}

}  // namespace
