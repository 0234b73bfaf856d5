// The harness's rules (batching, interleaving, medians, retries, bounded waits) decide every
// number we quote; these tests pin them down without depending on how fast this machine is.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "tools/measure/measure.hpp"
#include "tools/measure/proc.hpp"

namespace livetune {
namespace {

// Work the optimiser cannot remove: about `units` times the same loop.
void spin(int64_t units) {
  volatile double x = 1.0;
  for (int64_t i = 0; i < units * 20000; ++i) x = x * 1.0000001 + 1e-9;
}

MeasureOptions fast_options() {
  MeasureOptions o;
  o.warmup_s = 0.005;
  o.sample_s = 0.002;
  o.samples = 3;
  o.wait_quiet = false;
  return o;
}

TEST(CallsPerSample, EnoughCallsToFillTheSample) {
  EXPECT_EQ(calls_per_sample(0.001, 0.02), 20);
  EXPECT_EQ(calls_per_sample(0.003, 0.02), 7);  // 6 calls would last only 18 ms
  EXPECT_EQ(calls_per_sample(0.5, 0.02), 1);    // slower than a sample: one call
  EXPECT_EQ(calls_per_sample(0.0, 0.02), 1);    // below the clock's resolution
}

TEST(ProcStat, ParsesTheAggregateCpuLine) {
  // user nice system idle iowait irq softirq steal guest guest_nice
  auto t = parse_proc_stat_cpu_line("cpu  100 2 30 1000 5 1 2 3 50 0");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->busy, 100u + 2 + 30 + 1 + 2 + 3);
  EXPECT_EQ(t->total, t->busy + 1000 + 5);
  EXPECT_FALSE(parse_proc_stat_cpu_line("cpu0 1 2 3 4 5 6 7 8").has_value());
  EXPECT_FALSE(parse_proc_stat_cpu_line("intr 1 2 3").has_value());
}

TEST(ProcStat, CountersAdvance) {
  CpuTicks t0 = machine_cpu_ticks();
  double cpu0 = process_cpu_seconds();
  spin(200);
  CpuTicks t1 = machine_cpu_ticks();
  EXPECT_GT(t0.total, 0u);
  EXPECT_GE(t1.busy, t0.busy);
  EXPECT_GT(process_cpu_seconds(), cpu0);
}

TEST(MeasureInterleaved, SamplesAlternateAndAreBatchesOfTheAnnouncedSize) {
  // Run lengths of consecutive calls to the same function, in call order.
  std::vector<std::pair<int, int64_t>> runs;
  auto record = [&runs](int id) {
    return [&runs, id] {
      if (runs.empty() || runs.back().first != id) runs.push_back({id, 0});
      ++runs.back().second;
      spin(1);
    };
  };
  MeasureOptions o = fast_options();
  o.max_run_delay = 1e9;  // no retries, so each sample is one batch
  auto result = measure_interleaved({record(0), record(1)}, o);
  ASSERT_EQ(result.size(), 2u);
  // Warm-up of each in turn, then one batch of each per round: 0 1 | 0 1 | 0 1 | 0 1.
  ASSERT_EQ(runs.size(), size_t(2 + 2 * o.samples));
  for (size_t r = 0; r < runs.size(); ++r) EXPECT_EQ(runs[r].first, int(r % 2)) << "run " << r;
  for (size_t r = 2; r < runs.size(); ++r)
    EXPECT_EQ(runs[r].second, result[r % 2].calls_per_sample) << "run " << r;
  for (const auto& m : result) {
    EXPECT_EQ(m.samples_s.size(), size_t(o.samples));
    EXPECT_EQ(m.median_s, median(m.samples_s));
    EXPECT_EQ(m.retries, 0);
  }
}

TEST(MeasureInterleaved, MoreWorkGivesALargerMedian) {
  MeasureOptions o = fast_options();
  o.samples = 5;
  auto result = measure_interleaved({[] { spin(5); }, [] { spin(40); }}, o);
  // Eight times the work: even a noisy machine keeps it at least twice as slow.
  EXPECT_GT(result[1].median_s, 2.0 * result[0].median_s);
}

TEST(MeasureInterleaved, DelayedSamplesAreRetriedAtMostMaxRetries) {
  MeasureOptions o = fast_options();
  o.max_run_delay = -1.0;  // every sample counts as delayed
  o.max_retries = 2;
  auto result = measure_interleaved({[] { spin(1); }}, o);
  EXPECT_EQ(result[0].retries, o.samples * o.max_retries);
  EXPECT_EQ(result[0].delayed_samples, o.samples);
  EXPECT_EQ(result[0].samples_s.size(), size_t(o.samples));
}

TEST(MeasureInterleaved, QuietWaitGivesUpWithinItsBudget) {
  MeasureOptions o = fast_options();
  o.wait_quiet = true;
  o.quiet_busy_cpus = -1.0;  // never quiet
  o.quiet_window_s = 0.02;
  o.quiet_budget_s = 0.1;
  auto t0 = std::chrono::steady_clock::now();
  auto result = measure_interleaved({[] { spin(1); }}, o);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(result[0].loud_samples, o.samples);
  EXPECT_LT(took, 5.0);  // budget 0.1 s plus the samples: far below this unless the wait is unbounded
}

// The CPU time the calling thread has used, by its own clock.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// A spin whose CPU time, by the spinning thread's own clock, is added to `busy` on every call
// but the first (which cpu_wall_ratio makes untimed). The ratio over the test's own wall time
// is then a lower bound of the process's CPU over the timed wall time, however much of the
// machine other processes take.
struct CountedSpin {
  double busy = 0.0;
  int calls = 0;
  void operator()() {
    const double t0 = thread_cpu_seconds();
    spin(20);
    if (calls++ > 0) busy += thread_cpu_seconds() - t0;
  }
};

double wall_seconds_of(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(CpuWallRatio, OneBusyThreadIsAboutOne) {
  CountedSpin work;
  double ratio = 0.0;
  const double wall = wall_seconds_of([&] { ratio = cpu_wall_ratio([&] { work(); }, 0.1); });
  ASSERT_GT(work.busy, 0.0);
  EXPECT_LT(ratio, 1.25);
  EXPECT_GT(ratio, 0.9 * work.busy / wall);
}

TEST(CpuWallRatio, CountsOtherThreadsOfTheProcess) {
  // The caller only waits while a helper works: a per-thread clock would read about zero.
  CountedSpin work;
  double ratio = 0.0;
  const double wall = wall_seconds_of([&] {
    ratio = cpu_wall_ratio(
        [&] {
          std::thread helper([&] { work(); });
          helper.join();
        },
        0.1);
  });
  ASSERT_GT(work.busy, 0.0);
  EXPECT_GT(ratio, 0.9 * work.busy / wall);
}

}  // namespace
}  // namespace livetune
