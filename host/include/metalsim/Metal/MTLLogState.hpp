#pragma once
// MTL::LogState: where a command buffer's shader log lines go (docs/logging.md). As in metal-cpp:
// make one with Device::newLogState(descriptor, &error), add handlers, attach it to a command
// buffer through CommandBufferDescriptor::setLogState. A line reaches every handler whose log
// state's level it meets, with the kernel, threadgroup and thread position before the message:
// "[matmul tg(1,0,0) thread(3,2,0)] row 3: sum 4.5". A command buffer without a log state
// prints its lines on stderr (METALSIM_LOG=0: not at all). Lines are delivered when the
// command buffer completes, in threadgroup order; CommandBuffer::logs() keeps them too.
#include <functional>
#include <string>
#include <vector>

#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

enum LogLevel : NS::Integer {
  LogLevelUndefined = 0,
  LogLevelDebug = 1,
  LogLevelInfo = 2,
  LogLevelNotice = 3,
  LogLevelError = 4,
  LogLevelFault = 5,
};

enum LogStateError : NS::UInteger {
  LogStateErrorInvalidSize = 1,
  LogStateErrorInvalid = 2,
};

using LogHandlerFunction = std::function<void(NS::String* subsystem, NS::String* category,
                                              LogLevel logLevel, NS::String* message)>;

class LogStateDescriptor : public NS::Object {
 public:
  static LogStateDescriptor* alloc() { return new LogStateDescriptor; }
  LogStateDescriptor* init() { return this; }
  // Lines below this level are dropped. Undefined keeps every line.
  LogLevel level() const { return level_; }
  void setLevel(LogLevel level) { level_ = level; }
  // Metal's buffer for log text; at least 1 KiB (newLogState checks). metalsim keeps every
  // line, whatever the size.
  NS::Integer bufferSize() const { return buffer_size_; }
  void setBufferSize(NS::Integer bytes) { buffer_size_ = bytes; }

 private:
  ~LogStateDescriptor() override = default;
  LogLevel level_ = LogLevelUndefined;
  NS::Integer buffer_size_ = 64 * 1024;
};

class LogState : public NS::Object {
 public:
  void addLogHandler(const LogHandlerFunction& handler) { handlers_.push_back(handler); }

  // metalsim's own: hands one line to every handler (a line below the level is dropped).
  void deliver(const std::string& subsystem, const std::string& category, LogLevel level,
               const std::string& message) const;

 private:
  friend class Device;
  explicit LogState(LogLevel level) : level_(level) {}
  ~LogState() override = default;
  LogLevel level_;
  std::vector<LogHandlerFunction> handlers_;
};

}  // namespace MTL
