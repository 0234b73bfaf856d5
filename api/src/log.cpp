#include "livetune/log.hpp"

#include <cstdio>

#include "jit/log.hpp"

namespace livetune {

void set_log_callback(LogCallback callback, LogSeverity least) {
  if (!callback) {
    set_log_sink(nullptr);
    return;
  }
  set_log_sink([callback = std::move(callback), least](LogLevel level, const std::string& message) {
    const auto severity = static_cast<LogSeverity>(static_cast<int>(level));
    if (severity < least) return;
    // The callback runs on livetune's background threads too, where nothing could catch what
    // it throws: it would end the process. It loses that message to standard error instead.
    try {
      callback(severity, message);
    } catch (...) {
      std::fprintf(stderr, "livetune: the log callback threw; its message: %s\n", message.c_str());
    }
  });
}

}  // namespace livetune
