// Runtime::stats() as a table and as JSON.
#include <cstdio>
#include <string>

#include "stats.hpp"

namespace livetune {
namespace {

std::string format(const char* fmt, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// The kernel in use against the first one.
// The first kernel still in use is its own speed-up: two samples of one kernel's time differ
// only by the machine's drift (and, for a bucket of M, by the Ms its calls had).
// 0: not known yet.
double speedup(const WorkloadInfo& w) {
  if (!w.first_config.empty() && w.config == w.first_config) return 1.0;
  return w.kernel_us > 0 && w.first_kernel_us > 0 ? w.first_kernel_us / w.kernel_us : 0.0;
}

std::string settled_after(const WorkloadInfo& w) {
  return w.calls_to_settle ? std::to_string(w.calls_to_settle) + " calls, " + format("%.1f s", w.seconds_to_settle)
                           : "-";
}

}  // namespace

void write_candidates(Json& j, const WorkloadInfo& w) {
  j.begin_object("candidates")
      .field("proposed", int64_t(w.proposed))
      .field("compiled", int64_t(w.compiled))
      .field("validated", int64_t(w.validated))
      .field("measured", int64_t(w.measured))
      .field("rejected", int64_t(w.rejected))
      .field("promoted", int64_t(w.promoted))
      .end_object();
}

std::string RuntimeStats::table() const {
  std::string out = "workload                                                        state     tuning   calls  prop comp"
                    "  val meas  rej prom   kernel us  speedup  explored  settled after\n";
  for (const WorkloadInfo& w : workloads) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "%-62.62s  %-8s  %-8s %6llu %5llu %4llu %4llu %4llu %4llu %4llu %11.1f %8s %8.2f%%  %s\n",
                  w.workload.c_str(), w.state.c_str(), w.tuning.empty() ? "-" : w.tuning.c_str(),
                  static_cast<unsigned long long>(w.tuning_calls), static_cast<unsigned long long>(w.proposed),
                  static_cast<unsigned long long>(w.compiled), static_cast<unsigned long long>(w.validated),
                  static_cast<unsigned long long>(w.measured), static_cast<unsigned long long>(w.rejected),
                  static_cast<unsigned long long>(w.promoted), w.kernel_us,
                  speedup(w) > 0 ? format("%.2fx", speedup(w)).c_str() : "-",
                  100 * w.exploration_overhead,
                  settled_after(w).c_str());
    out += line;
    if (!w.config.empty()) out += "    kernel: " + w.config + "\n";
  }
  return out;
}

void write_workload(Json& j, const WorkloadInfo& w) {
  j.begin_object()
      .field("workload", w.workload)
      .field("state", w.state)
      .field("tuning", w.tuning)
      .field("config", w.config)
      .field("first_config", w.first_config)
      .field("compile_ms", w.compile_ms)
      .field("tuning_calls", int64_t(w.tuning_calls))
      .field("calls_to_settle", int64_t(w.calls_to_settle))
      .field("seconds_to_settle", w.seconds_to_settle);
  write_candidates(j, w);
  j.field("kernel_us", w.kernel_us).field("first_kernel_us", w.first_kernel_us);
  if (speedup(w) > 0) j.field("speedup", speedup(w));
  else j.null_field("speedup");
  j.field("exploration_overhead", w.exploration_overhead).end_object();
}

std::string RuntimeStats::json() const {
  Json j;
  j.begin_object().begin_array("workloads");
  for (const WorkloadInfo& w : workloads) write_workload(j, w);
  j.end_array().end_object();
  return j.str();
}

}  // namespace livetune
