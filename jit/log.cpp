#include "jit/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace livetune {
namespace {

LogLevel env_level() {
  const char* env = std::getenv("LIVETUNE_LOG");
  if (!env) return LogLevel::warn;
  if (!std::strcmp(env, "debug")) return LogLevel::debug;
  if (!std::strcmp(env, "info")) return LogLevel::info;
  if (!std::strcmp(env, "error")) return LogLevel::error;
  return LogLevel::warn;
}

struct Log {
  std::mutex mutex;
  LogSink sink;
  LogLevel threshold = env_level();
};

Log& the_log() {
  // Never destroyed: a static Runtime may log while it is destroyed after main.
  static Log& log = *new Log;
  return log;
}

}  // namespace

void log(LogLevel level, const std::string& message) {
  Log& l = the_log();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (l.sink) return l.sink(level, message);
  if (level < l.threshold) return;
  static const char* names[] = {"debug", "info", "warn", "error"};
  std::fprintf(stderr, "livetune %s: %s\n", names[int(level)], message.c_str());
}

void set_log_sink(LogSink sink) {
  Log& l = the_log();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.sink = std::move(sink);
}

}  // namespace livetune
