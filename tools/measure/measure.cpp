#include "tools/measure/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "tools/measure/proc.hpp"

namespace livetune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Runs fn until at least min_s has passed; returns the calls made and the time they took.
std::pair<int64_t, double> run_for(const std::function<void()>& fn, double min_s) {
  auto t0 = Clock::now();
  int64_t calls = 0;
  double elapsed = 0.0;
  do {
    fn();
    ++calls;
    elapsed = seconds_since(t0);
  } while (elapsed < min_s);
  return {calls, elapsed};
}

struct Sample {
  double per_call_s;
  bool delayed;
};

Sample take_sample(const std::function<void()>& fn, int64_t calls, double max_run_delay) {
  uint64_t delay0 = run_delay_ns();
  auto t0 = Clock::now();
  for (int64_t i = 0; i < calls; ++i) fn();
  double wall = seconds_since(t0);
  // Threads that exited during the sample take their counts with them: never below zero.
  double delay = 1e-9 * double(std::max<int64_t>(0, int64_t(run_delay_ns()) - int64_t(delay0)));
  return {wall / double(calls), delay > max_run_delay * wall};
}

// Waits until the machine is quiet or the budget is spent; false if it gave up.
bool wait_quiet(const MeasureOptions& o, double& budget_s) {
  while (budget_s > 0.0) {
    double window = std::min(o.quiet_window_s, budget_s);
    budget_s -= window;
    if (others_busy_cpus(window) <= o.quiet_busy_cpus) return true;
  }
  return false;
}

}  // namespace

int64_t calls_per_sample(double per_call_s, double sample_s) {
  if (!(per_call_s > 0.0)) return 1;
  return std::max<int64_t>(1, int64_t(std::ceil(sample_s / per_call_s)));
}

std::vector<Measurement> measure_interleaved(const std::vector<std::function<void()>>& fns,
                                             const MeasureOptions& o) {
  std::vector<Measurement> out(fns.size());
  for (size_t i = 0; i < fns.size(); ++i) {
    fns[i]();  // first call: page faults, JIT, thread start-up
    auto [calls, elapsed] = run_for(fns[i], o.warmup_s);
    out[i].calls_per_sample = calls_per_sample(elapsed / double(calls), o.sample_s);
  }
  double budget_s = o.quiet_budget_s;
  for (int round = 0; round < o.samples; ++round) {
    // One wait per round rather than per sample: a round is short next to the window, and the
    // functions of one round then see the same conditions.
    bool quiet = !o.wait_quiet || wait_quiet(o, budget_s);
    // The wait sleeps: the core then runs slower for a few milliseconds (the round's first
    // function read 15-27% slow on a Zen 3 VM), so run it untimed until the core is back.
    if (o.wait_quiet) run_for(fns[0], o.rewarm_s);
    for (size_t i = 0; i < fns.size(); ++i) {
      Measurement& m = out[i];
      Sample s = take_sample(fns[i], m.calls_per_sample, o.max_run_delay);
      for (int retry = 0; s.delayed && retry < o.max_retries; ++retry) {
        ++m.retries;
        s = take_sample(fns[i], m.calls_per_sample, o.max_run_delay);
      }
      m.samples_s.push_back(s.per_call_s);
      m.delayed_samples += s.delayed;
      m.loud_samples += !quiet;
    }
  }
  for (Measurement& m : out) m.median_s = median(m.samples_s);
  return out;
}

double cpu_wall_ratio(const std::function<void()>& fn, double min_s) {
  fn();
  double cpu0 = process_cpu_seconds();
  double wall = run_for(fn, min_s).second;
  return (process_cpu_seconds() - cpu0) / wall;
}

}  // namespace livetune
