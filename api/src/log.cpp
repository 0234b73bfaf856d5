#include "livetune/log.hpp"

#include "jit/log.hpp"

namespace livetune {

void set_log_callback(LogCallback callback, LogSeverity least) {
  if (!callback) {
    set_log_sink(nullptr);
    return;
  }
  set_log_sink([callback = std::move(callback), least](LogLevel level, const std::string& message) {
    const auto severity = static_cast<LogSeverity>(static_cast<int>(level));
    if (severity >= least) callback(severity, message);
  });
}

}  // namespace livetune
