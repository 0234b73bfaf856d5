#pragma once
// Side-by-side timing of several functions on a shared, noisy machine (see
// shared/notes/measuring.md): warm each up, then take samples interleaved A B C A B C ..., each a
// batch of calls long enough to time well, waiting (bounded) for a quiet machine before each round
// and retrying samples the scheduler delayed. Report medians; compare functions measured together.
#include <cstdint>
#include <functional>
#include <vector>

#include "sampler/statistics.hpp"  // median, median_interval

namespace livetune {

struct MeasureOptions {
  double warmup_s = 0.05;  // calls per function after the first, untimed one
  double sample_s = 0.02;  // a sample is a batch of calls lasting at least this long
  int samples = 7;         // per function

  bool wait_quiet = true;        // before each round, wait until other loads are idle
  double quiet_window_s = 0.5;   // /proc/stat window one look at the load averages over
  double quiet_busy_cpus = 0.1;  // busy CPUs beyond our own that still count as quiet
  double quiet_budget_s = 5.0;   // total waiting per measure_interleaved; then carry on regardless
  double rewarm_s = 0.02;        // after a wait, calls of the round's first function, untimed

  double max_run_delay = 0.02;  // retry a sample whose threads waited for a CPU longer than this share of it
  int max_retries = 3;          // per sample; the last try is kept
};

struct Measurement {
  double median_s = 0.0;          // per call
  std::vector<double> samples_s;  // per call, kept samples in the order taken
  int64_t calls_per_sample = 0;
  int retries = 0;        // samples retaken because of run-delay
  int delayed_samples = 0;  // kept although still over max_run_delay after max_retries
  int loud_samples = 0;     // taken after the quiet wait gave up
};

// Measures every fn; the result is in the order of fns.
std::vector<Measurement> measure_interleaved(const std::vector<std::function<void()>>& fns,
                                             const MeasureOptions& options = {});

// Calls per sample for a function taking per_call_s: enough to last sample_s, at least one.
int64_t calls_per_sample(double per_call_s, double sample_s);

// Process CPU time / wall time while calling fn repeatedly for at least min_s (after one untimed
// call): about the number of threads fn keeps busy, including helper threads that spin.
double cpu_wall_ratio(const std::function<void()>& fn, double min_s = 0.2);

}  // namespace livetune
