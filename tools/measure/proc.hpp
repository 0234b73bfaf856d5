#pragma once
// What Linux says about the machine's load and our own scheduling delays: the inputs of the
// harness's "wait for a quiet machine" and "retry a delayed sample" rules.
#include <cstdint>
#include <optional>
#include <string_view>

namespace livetune {

struct CpuTicks {
  uint64_t busy = 0;   // user + nice + system + irq + softirq + steal
  uint64_t total = 0;  // busy + idle + iowait
};

// Parses the aggregate "cpu ..." line of /proc/stat; nullopt if it is not one.
std::optional<CpuTicks> parse_proc_stat_cpu_line(std::string_view line);
// The machine-wide counters now; zeros if /proc/stat cannot be read.
CpuTicks machine_cpu_ticks();
// Clock ticks per second of /proc/stat counters.
double ticks_per_second();

// CPU time this process has used, all threads, in seconds.
double process_cpu_seconds();
// Sum over this process's threads of the time spent runnable but waiting for a CPU
// (/proc/self/task/*/schedstat, second field), in nanoseconds; 0 where schedstat is missing.
uint64_t run_delay_ns();

// Busy CPUs beyond this process, averaged over window_s (sleeps for it): 0.9 means another
// load kept about one CPU busy.
double others_busy_cpus(double window_s);

}  // namespace livetune
