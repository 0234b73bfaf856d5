#pragma once
// The online tuning session of one workload. It lives beside the workload's state in the
// dispatcher and runs only on background threads (step()), one step at a time; the call path
// sees only LiveTuning. Each round, the candidate source proposes many configs and adaptive
// sampling (round_plan.hpp) picks the few to try; each is compiled and validated here, then
// raced against the incumbent on live calls in stages of paired calls (trial.hpp) until it is
// faster with confidence (promoted), clearly or surely slower, or out of pairs (dropped). A
// stage opens only when the exploration budget allows it; rounds that stop improving settle
// the workload, after which its calls cost the lookup and the incumbent only.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "jit/kernel.hpp"
#include "jit/space.hpp"
#include "sampler/budget.hpp"
#include "sampler/candidate_source.hpp"
#include "sampler/cost_model.hpp"
#include "sampler/trial.hpp"
#include "sampler/validation.hpp"

namespace livetune {

struct TuningOptions {
  bool enabled = true;      // false: frozen, the first kernel serves every call
  double budget = 0.02;     // exploration overhead, share of the workload's call time
  int proposals = 128;      // configs proposed per round, before clustering
  int pairs_per_stage = 4;  // paired calls per stage, after a candidate's first two (1 and 3 pairs)
  int max_pairs = 24;       // a candidate not faster with confidence by then is dropped
  double margin = 0.01;     // faster means faster by more than this share
  double clearly_slower = 1.2;  // median time ratio that drops a candidate after 4 pairs
  int settle_rounds = 5;    // rounds in a row without a promotion settle the workload
  int max_candidates = 64;  // configs tried at most until settled (again after a drift), the incumbent's aside
  // A settled workload tunes again when the median of its sampled calls is this much slower
  // than the kernel's recorded time.
  double drift = 1.2;
  // A candidate whose validation run takes more than this many times the first kernel's is
  // dropped unraced (0: none is). Both runs are real: a caller whose call times are simulated
  // turns it off.
  double screen_ratio = 4.0;
  uint64_t seed = 1;
};

// What the call path reads (and counts) and the session writes.
struct LiveTuning {
  // The workload's first call (set before the session is made): time to settle counts from it.
  std::chrono::steady_clock::time_point first_call{};
  std::atomic<const Kernel*> incumbent{nullptr};
  std::atomic<Trial*> trial{nullptr};  // the open stage, if any
  std::atomic<bool> tuning{false};     // calls are counted and may meet a trial
  std::atomic<uint64_t> calls{0};      // calls counted while tuning
  // The call that counts this many hands the session a step (the budget allows a stage then).
  std::atomic<uint64_t> wake_at{std::numeric_limits<uint64_t>::max()};
  // Once settled, a call now and then is timed here; the one that fills the last slot hands
  // the session a step, which wakes tuning if the kernel has drifted (TuningOptions::drift).
  static constexpr uint32_t kDriftSamples = 16;
  std::array<std::atomic<double>, kDriftSamples> drift_seconds{};
  std::atomic<uint32_t> drift_next{0};
  // Whether a settled call's time goes to slot `i` (true for the one that fills the last).
  bool drift_sample(double seconds, bool& full) {
    const uint32_t i = drift_next.fetch_add(1, std::memory_order_relaxed);
    if (i >= kDriftSamples) return false;
    drift_seconds[i].store(seconds, std::memory_order_relaxed);
    full = i + 1 == kDriftSamples;
    return true;
  }
};

struct TuningReport {
  std::string state;       // tuning, settled, frozen
  uint64_t calls = 0;      // counted while tuning
  uint64_t calls_to_settle = 0;
  double seconds_to_settle = 0.0;  // from the workload's first call
  size_t proposed = 0, compiled = 0, validated = 0, measured = 0, rejected = 0, promoted = 0;
  std::string incumbent_config;
  double incumbent_s = 0.0;  // median time of the incumbent's latest timed calls
  double first_s = 0.0;      // the same for the first JIT kernel
  double overhead_s = 0.0;   // exploration overhead so far (budget.hpp)
  double total_s = 0.0;      // all call time so far, estimated
  size_t stages_held = 0;    // racing stages in memory: the open one, closed ones a caller may still use
};

class TuningSession {
 public:
  // Told the state worth keeping: after a promotion and when the session settles.
  using Recorder = std::function<void(const TuningReport&)>;
  // `first` is the incumbent already in live.incumbent; `data` validates the candidates (those
  // of the workload's first kernel serve again). `recorded`: what an earlier process recorded
  // for `first` (its times; settled: no tuning now). `source` proposes each round's configs
  // (null: ModelFreeSource).
  TuningSession(LiveTuning& live, KernelPtr first, std::unique_ptr<ValidationData> data,
                const TuningOptions& options, const TuningReport* recorded = nullptr, Recorder recorder = nullptr,
                std::unique_ptr<CandidateSource> source = nullptr);
  TuningSession(const TuningSession&) = delete;
  TuningSession& operator=(const TuningSession&) = delete;

  // Whether calls should be counted and offered trials (not frozen, not settled). The owner
  // sets live.tuning from it once the session is reachable from the call path.
  bool active() const;
  void step();
  // As of the end of the last step: never waits for a step (which may be compiling).
  TuningReport report() const;

 private:
  void advance_from_timings();
  void check_drift();
  void publish();
  void judge(Trial& t);
  void advance();
  bool next_candidate();
  void next_round();
  void open(const Kernel* candidate, int pairs);
  void drop_candidate(bool measured = true);
  void settle();
  void record();
  void release_idle();
  void free_trials();

  LiveTuning& live_;
  const TuningOptions options_;
  const Recorder recorder_;
  const Workload workload_;
  const Space space_;
  std::unique_ptr<CandidateSource> source_;
  CostModel model_;
  ExplorationBudget budget_;
  std::mt19937_64 rng_;
  std::unique_ptr<ValidationData> data_;  // freed once settled
  double first_run_s_ = 0.0;              // the first kernel's warm run on data_'s inputs (screening)

  std::vector<KernelPtr> incumbents_;  // every one so far: a caller may still be inside an old one
  KernelPtr candidate_;
  std::vector<double> ratios_;                  // candidate / incumbent time, per pair so far
  int void_stages_ = 0;                         // of the candidate, stages without a fair pair
  std::vector<Trial*> candidate_trials_;        // the stages of the candidate so far
  std::vector<std::unique_ptr<Trial>> trials_;  // the open one, and closed ones a caller may still use
  struct Retiring {
    std::vector<Trial*> trials;
    KernelPtr kernel;  // freed when no caller is inside any of the trials
  };
  std::vector<Retiring> retiring_;
  std::deque<Config> queue_;  // this round's configs still to try
  std::set<std::string> tried_;

  uint64_t calls_seen_ = 0;
  double incumbent_s_ = 0.0;
  double first_s_ = 0.0;
  int rounds_ = 0, rounds_without_gain_ = 0;
  bool gained_ = false, settled_ = false;
  uint64_t calls_to_settle_ = 0;
  double seconds_to_settle_ = 0.0;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  size_t proposed_ = 0, compiled_ = 0, validated_ = 0, measured_ = 0, rejected_ = 0, promoted_ = 0;
  mutable std::mutex mutex_;  // one step at a time; never taken on the call path
  mutable std::mutex report_mutex_;
  TuningReport published_;
};

}  // namespace livetune
