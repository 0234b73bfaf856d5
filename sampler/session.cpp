#include "sampler/session.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "jit/compile.hpp"
#include "jit/log.hpp"
#include "jit/target.hpp"
#include "sampler/round_plan.hpp"
#include "sampler/hazard.hpp"
#include "sampler/statistics.hpp"

namespace livetune {
namespace {

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

}  // namespace

TuningSession::TuningSession(LiveTuning& live, KernelPtr first, std::unique_ptr<ValidationData> data,
                             const TuningOptions& options, const TuningReport* recorded, Recorder recorder,
                             std::unique_ptr<CandidateSource> source)
    : live_(live),
      options_(options),
      recorder_(std::move(recorder)),
      workload_(first->workload),
      space_(gemm_space(first->workload, Target::host())),
      source_(source ? std::move(source) : std::make_unique<ModelFreeSource>()),
      budget_(options.budget,
              first->workload.min_m > 0 ? ExplorationBudget::kBucketReserve : ExplorationBudget::kReserve),
      rng_(options.seed ^ first->workload.hash()),
      data_(options.enabled ? std::move(data) : nullptr) {
  incumbents_.push_back(std::move(first));
  tried_.insert(incumbents_.back()->config.text());
  if (recorded) first_s_ = recorded->first_s;
  settled_ = !options_.enabled || (recorded && recorded->state == "settled");
  if (settled_) {
    incumbent_s_ = recorded ? recorded->incumbent_s : 0.0;
    data_.reset();
  }
  publish();
}

bool TuningSession::active() const {
  std::lock_guard lock(mutex_);
  return !settled_;
}

void TuningSession::publish() {
  TuningReport r;
  r.state = !options_.enabled ? "frozen" : settled_ ? "settled" : "tuning";
  r.calls_to_settle = calls_to_settle_;
  r.seconds_to_settle = seconds_to_settle_;
  r.proposed = proposed_, r.compiled = compiled_, r.validated = validated_;
  r.measured = measured_, r.rejected = rejected_, r.promoted = promoted_;
  r.stages_held = trials_.size();
  r.incumbent_config = incumbents_.back()->config.text();
  r.incumbent_s = incumbent_s_;
  r.first_s = first_s_;
  r.overhead_s = budget_.overhead_s();
  r.total_s = budget_.total_s();
  std::lock_guard lock(report_mutex_);
  published_ = std::move(r);
}

void TuningSession::step() {
  std::lock_guard lock(mutex_);
  advance_from_timings();
  release_idle();
  free_trials();
  publish();
}

void TuningSession::advance_from_timings() {
  if (settled_) {
    if (options_.enabled) check_drift();
    return;
  }
  const uint64_t calls = live_.calls.load(std::memory_order_relaxed);
  budget_.add_calls(calls - calls_seen_, incumbent_s_);
  calls_seen_ = calls;
  if (Trial* t = live_.trial.load(std::memory_order_acquire)) {
    if (!t->full()) return;
    judge(*t);
  }
  advance();
}

// The sampled calls of a settled workload: tuning wakes when their median is `drift` times the
// kernel's recorded time — the machine or the traffic changed, and with it maybe the best.
void TuningSession::check_drift() {
  if (live_.drift_next.load(std::memory_order_acquire) < LiveTuning::kDriftSamples) return;
  std::vector<double> seconds;
  for (const auto& s : live_.drift_seconds) seconds.push_back(s.load(std::memory_order_relaxed));
  const double now = median(seconds);
  if (incumbent_s_ > 0.0 && now > options_.drift * incumbent_s_) {
    log(LogLevel::info, "'" + workload_.text() + "': kernel drifted from " + std::to_string(incumbent_s_ * 1e6) +
                            " to " + std::to_string(now * 1e6) + " us per call: tuning again");
    settled_ = false;
    incumbent_s_ = 0.0;  // a new baseline first
    rounds_without_gain_ = 0;
    // The configs tried before were raced on the machine as it was: any may win now, and a
    // session that had settled at max_candidates could otherwise try none.
    tried_ = {incumbents_.back()->config.text()};
    data_ = std::make_unique<ValidationData>(workload_, workload_.hash());
    first_run_s_ = 0.0;
    calls_seen_ = live_.calls.load(std::memory_order_relaxed);
    live_.tuning.store(true, std::memory_order_release);
    advance();
  }
  live_.drift_next.store(0, std::memory_order_release);
}

// The next stage: a baseline of the incumbent first (its time prices the budget), then the
// current candidate's next stage, or the next candidate, or the next round.
void TuningSession::advance() {
  while (!settled_) {
    if (incumbent_s_ <= 0.0) {
      open(incumbents_.back().get(), options_.pairs_per_stage);
      return;
    }
    if (options_.budget <= 0.0) {  // nothing may be explored: the baseline was all there is
      settle();
      return;
    }
    if (!candidate_ && !next_candidate()) {
      next_round();
      continue;
    }
    // Successive stages of 1, 3, then pairs_per_stage pairs: one pair is enough to see that a
    // candidate is far slower. A stage costs its pairs times the candidate's excess over the
    // incumbent, priced high so that a misjudged stage does not break the budget: a fresh
    // candidate as three times the incumbent's time, a measured one at 1.25x its excess so far.
    const int pairs = ratios_.empty() ? 1 : ratios_.size() < 4 ? 3 : options_.pairs_per_stage;
    const double excess = ratios_.empty() ? 2.0 : 1.25 * std::max(0.02, median(ratios_) - 1.0);
    const double extra = pairs * incumbent_s_ * excess;
    const uint64_t wait = budget_.calls_until(extra, incumbent_s_);
    if (wait == 0) {
      open(candidate_.get(), pairs);
      return;
    }
    // The call that counts wake_at steps the session again; if the calls got there before
    // wake_at was set, take the step now.
    // Sequentially consistent against the callers' count and load of wake_at: either the
    // caller that counts `wake` sees it, or this load sees that call.
    const uint64_t wake = calls_seen_ + wait;
    live_.wake_at.store(wake, std::memory_order_seq_cst);
    const uint64_t calls = live_.calls.load(std::memory_order_seq_cst);
    if (calls < wake) return;
    budget_.add_calls(calls - calls_seen_, incumbent_s_);
    calls_seen_ = calls;
  }
}

void TuningSession::open(const Kernel* candidate, int pairs) {
  trials_.push_back(std::make_unique<Trial>(incumbents_.back().get(), candidate, pairs));
  live_.trial.store(trials_.back().get(), std::memory_order_seq_cst);
}

void TuningSession::judge(Trial& t) {
  t.close();
  // Sequentially consistent, before free_trials() looks for callers announcing it.
  live_.trial.store(nullptr, std::memory_order_seq_cst);
  const std::vector<double> inc = t.incumbent_seconds(), cand = t.candidate_seconds();
  if (t.candidate() == incumbents_.back().get()) {  // a baseline
    std::vector<double> all = inc;
    all.insert(all.end(), cand.begin(), cand.end());
    incumbent_s_ = median(all);
    if (first_s_ <= 0.0) first_s_ = incumbent_s_;
    return;
  }
  candidate_trials_.push_back(&t);
  // A pair whose candidate call could not run fairly (Trial::kVoid) is left out.
  std::vector<double> inc_used, cand_used;
  std::string times;
  for (size_t p = 0; p < inc.size(); ++p) {
    times += " " + std::to_string(inc[p] * 1e3) + "/" + std::to_string(cand[p] * 1e3);
    if (std::isnan(cand[p]) || std::isnan(inc[p])) continue;
    inc_used.push_back(inc[p]);
    cand_used.push_back(cand[p]);
  }
  log(LogLevel::debug, "'" + workload_.text() + "': '" + candidate_->config.text() +
                           "' raced, ms incumbent/candidate per pair:" + times);
  if (inc_used.empty()) {
    // Three stages without one fair pair: the candidate cannot be measured here.
    if (++void_stages_ >= 3) drop_candidate(false);
    return;
  }
  budget_.add_extra(sum(cand_used) - sum(inc_used));
  for (size_t p = 0; p < inc_used.size(); ++p) ratios_.push_back(cand_used[p] / inc_used[p]);
  incumbent_s_ = median(inc_used);  // follows the machine's drift

  const Verdict verdict = race(ratios_, options_.margin);
  if (verdict == Verdict::faster) {
    model_.add(candidate_->config, median(cand_used));
    ++measured_, ++promoted_;
    gained_ = true;
    log(LogLevel::info, "'" + workload_.text() + "': promoted '" + candidate_->config.text() + "' (" +
                            std::to_string(median(ratios_)) + " of the incumbent's time)");
    live_.incumbent.store(candidate_.get(), std::memory_order_release);
    incumbents_.push_back(std::move(candidate_));
    incumbent_s_ = median(cand_used);
    candidate_trials_.clear();
    ratios_.clear();
    void_stages_ = 0;
    record();
    return;
  }
  // Racing: drop a candidate as soon as it cannot plausibly win — surely slower, far slower
  // on its first pair, clearly slower after a few, not faster after eight, or out of pairs.
  const double m = median(ratios_);
  const size_t n = ratios_.size();
  const bool out = verdict == Verdict::slower || (n == 1 && m > 1.5) || (n >= 4 && m > options_.clearly_slower) ||
                   (n >= 8 && m >= 1.0) || int(n) >= options_.max_pairs;
  if (out) drop_candidate();
}

void TuningSession::drop_candidate(bool measured) {
  if (measured) {
    model_.add(candidate_->config, median(ratios_) * incumbent_s_);
    ++measured_;
  }
  retiring_.push_back(Retiring{std::move(candidate_trials_), std::move(candidate_)});
  candidate_trials_.clear();
  candidate_.reset();
  ratios_.clear();
  void_stages_ = 0;
}

void TuningSession::release_idle() {
  std::erase_if(retiring_, [](const Retiring& r) {
    return std::all_of(r.trials.begin(), r.trials.end(), [](const Trial* t) { return t->idle(); });
  });
}

// A closed stage is freed once no caller is inside it or about to enter it (a caller
// announces the stage it loaded until it has entered or given up), and the racing of its
// candidate no longer needs it.
void TuningSession::free_trials() {
  const Trial* open = live_.trial.load(std::memory_order_seq_cst);
  auto needed = [&](const Trial* t) {
    if (std::find(candidate_trials_.begin(), candidate_trials_.end(), t) != candidate_trials_.end()) return true;
    return std::any_of(retiring_.begin(), retiring_.end(), [t](const Retiring& r) {
      return std::find(r.trials.begin(), r.trials.end(), t) != r.trials.end();
    });
  };
  std::erase_if(trials_, [&](const std::unique_ptr<Trial>& t) {
    return t.get() != open && t->idle() && !needed(t.get()) && !hazard::announced(t.get());
  });
}

// Compiles and validates the round's next config; a failure is counted, logged and never
// tried again.
bool TuningSession::next_candidate() {
  while (!queue_.empty() && int(tried_.size()) <= options_.max_candidates) {
    const Config config = queue_.front();
    queue_.pop_front();
    tried_.insert(config.text());
    KernelPtr k;
    try {
      k = compile_gemm(workload_, config);
    } catch (const std::exception& e) {
      ++rejected_;
      log(LogLevel::warn, "'" + workload_.text() + "': candidate '" + config.text() + "' did not compile: " + e.what());
      continue;
    }
    ++compiled_;
    const bool screening = options_.screen_ratio > 0.0;
    if (screening && first_run_s_ <= 0.0) first_run_s_ = data_->warm_run_seconds(*incumbents_.front());
    double run_s = 0.0;
    if (const std::string why = data_->check(*k, &run_s); !why.empty()) {
      ++rejected_;
      log(LogLevel::warn, "'" + workload_.text() + "': candidate '" + config.text() + "' dropped: " + why);
      continue;
    }
    // A candidate whose validation run took several times the first kernel's would cost the
    // budget far more than a stage is priced at (one at 10x cost 1.5% of a workload's call time
    // in one pair): it never meets a live call. The bound is wide, as both runs share the
    // machine with the callers. Its validation run was its first: one that seems slow runs
    // again, warm as the first kernel's was (24×48×32 on Zen 5: three candidates' first runs
    // took 10–59x the first kernel's, their second runs 0.9–3.5x).
    if (screening && run_s > options_.screen_ratio * first_run_s_) run_s = data_->warm_run_seconds(*k);
    if (screening && run_s > options_.screen_ratio * first_run_s_) {
      ++rejected_;
      log(LogLevel::info, "'" + workload_.text() + "': candidate '" + config.text() +
                              "' screened out: its validation run took " + std::to_string(run_s / first_run_s_) +
                              "x the first kernel's");
      continue;
    }
    ++validated_;
    candidate_ = std::move(k);
    return true;
  }
  return false;
}

void TuningSession::next_round() {
  if (rounds_ > 0) rounds_without_gain_ = gained_ ? 0 : rounds_without_gain_ + 1;
  if (rounds_without_gain_ >= options_.settle_rounds || int(tried_.size()) > options_.max_candidates) {
    settle();
    return;
  }
  ++rounds_;
  gained_ = false;
  std::vector<Config> proposals =
      source_->propose(space_, incumbents_.back()->config, size_t(options_.proposals), rng_);
  proposed_ += proposals.size();
  if (model_.samples() > 0) model_.fit();
  const RoundPlan plan = plan_round(
      space_, proposals, model_, [this](const Config& c) { return tried_.count(c.text()) > 0; }, RoundOptions{},
      rng_());
  queue_.assign(plan.to_measure.begin(), plan.to_measure.end());
}

void TuningSession::settle() {
  settled_ = true;
  calls_to_settle_ = calls_seen_;
  const auto since = live_.first_call != std::chrono::steady_clock::time_point{} ? live_.first_call : started_;
  seconds_to_settle_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  live_.tuning.store(false, std::memory_order_release);
  data_.reset();
  first_run_s_ = 0.0;
  queue_.clear();
  log(LogLevel::info, "'" + workload_.text() + "': settled on '" + incumbents_.back()->config.text() + "'");
  record();
}

void TuningSession::record() {
  if (!recorder_) return;
  publish();
  recorder_(report());
}

TuningReport TuningSession::report() const {
  std::lock_guard lock(report_mutex_);
  TuningReport r = published_;
  r.calls = live_.calls.load(std::memory_order_relaxed);
  return r;
}

}  // namespace livetune
