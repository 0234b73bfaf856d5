#pragma once
// One log for every layer. The default sink writes to stderr the messages at or above
// LIVETUNE_LOG (debug, info, warn; default warn); an application may install its own.
#include <functional>
#include <string>

namespace livetune {

// The same values as the public livetune::LogSeverity (api/include/livetune/log.hpp).
enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

using LogSink = std::function<void(LogLevel, const std::string&)>;

void log(LogLevel level, const std::string& message);
// An empty sink restores the default.
void set_log_sink(LogSink sink);

}  // namespace livetune
