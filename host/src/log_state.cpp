#include "metalsim/Metal/MTLLogState.hpp"

namespace MTL {
namespace {

// A string for one handler call, released after it (NS::String::string would intern it).
NS::SharedPtr<NS::String> transient(const std::string& text) {
  return NS::TransferPtr(NS::String::alloc()->init(text.c_str(), NS::UTF8StringEncoding));
}

}  // namespace

void LogState::deliver(const std::string& subsystem, const std::string& category, LogLevel level,
                       const std::string& message) const {
  if (level_ != LogLevelUndefined && level < level_) return;
  const auto s = transient(subsystem), c = transient(category), m = transient(message);
  for (const LogHandlerFunction& h : handlers_) h(s.get(), c.get(), level, m.get());
}

}  // namespace MTL
