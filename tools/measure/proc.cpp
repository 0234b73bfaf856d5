#include "tools/measure/proc.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace livetune {

std::optional<CpuTicks> parse_proc_stat_cpu_line(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::string label;
  if (!(in >> label) || label != "cpu") return std::nullopt;
  // user nice system idle iowait irq softirq steal; guest time is already inside user and nice.
  uint64_t f[8] = {};
  int read = 0;
  while (read < 8 && in >> f[read]) ++read;
  if (read < 4) return std::nullopt;
  CpuTicks t;
  t.busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
  t.total = t.busy + f[3] + f[4];
  return t;
}

CpuTicks machine_cpu_ticks() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  return parse_proc_stat_cpu_line(line).value_or(CpuTicks{});
}

double ticks_per_second() {
  static const double hz = double(sysconf(_SC_CLK_TCK));
  return hz;
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

uint64_t run_delay_ns() {
  uint64_t sum = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream in(task.path() / "schedstat");
    uint64_t on_cpu = 0, delay = 0;
    if (in >> on_cpu >> delay) sum += delay;
  }
  return sum;
}

double others_busy_cpus(double window_s) {
  CpuTicks t0 = machine_cpu_ticks();
  double own0 = process_cpu_seconds();
  auto w0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(window_s));
  CpuTicks t1 = machine_cpu_ticks();
  double own = process_cpu_seconds() - own0;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  double busy = double(t1.busy - t0.busy) / ticks_per_second();
  return (busy - own) / wall;
}

}  // namespace livetune
