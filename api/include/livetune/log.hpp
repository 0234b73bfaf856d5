#pragma once
// Where livetune's messages go: compiles and candidates dropped, promotions, settling,
// drift, the tuning database set aside. By default standard error, at the level in
// LIVETUNE_LOG (debug, info, warn, error; warn when unset).
#include <cstdint>
#include <functional>
#include <string>

namespace livetune {

enum class LogSeverity : uint8_t { debug, info, warn, error };

// Gets every message at `least` or above, from any thread (background ones included), one at
// a time. An empty callback restores the default. A message whose callback throws goes to
// standard error.
using LogCallback = std::function<void(LogSeverity, const std::string& message)>;
void set_log_callback(LogCallback callback, LogSeverity least = LogSeverity::info);

}  // namespace livetune
