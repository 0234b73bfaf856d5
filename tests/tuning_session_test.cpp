// sampler/session on simulated traffic: the test is the call path (as the dispatcher's
// tuning_call is), and each kernel's call time is a fixed function of its config. Racing, the
// exploration budget and drift are then checked exactly, whatever the machine's timings; only
// compiling and validating the candidates is real.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "jit/compile.hpp"
#include "jit/target.hpp"
#include "policy/default_rule.hpp"
#include "sampler/candidate_source.hpp"
#include "sampler/session.hpp"
#include "sampler/validation.hpp"

namespace livetune {
namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// Call times: the first kernel 1 ms, every other config 0.85–1.85 ms by its text (or all
// `candidates` times the first kernel's), all times `slowdown`.
struct Machine {
  std::string first_config;
  double slowdown = 1.0;
  double candidates = 0.0;
  double seconds(const Kernel& k) const {
    const std::string text = k.config.text();
    const double factor = text == first_config ? 1.0
                          : candidates > 0     ? candidates
                                               : 0.85 + double(fnv1a(text) % 1000) / 1000.0;
    return 1e-3 * factor * slowdown;
  }
};

struct Traffic {
  LiveTuning live;
  Machine machine;
  std::unique_ptr<TuningSession> session;
  // Of the calls made while tuning: their time, and what candidate calls took beyond what the
  // incumbent would have.
  double tuning_s = 0.0, extra_s = 0.0;
  double worst_share = 0.0;  // the largest extra_s / tuning_s after any call

  std::map<std::string, int> raced;  // calls each candidate ran, by config

  explicit Traffic(const TuningOptions& o, std::unique_ptr<CandidateSource> source = nullptr) {
    const Workload w = Workload::matmul(24, 48, 32);
    KernelPtr first = compile_gemm(w, default_gemm_config(w, Target::host(), 1));
    machine.first_config = first->config.text();
    live.incumbent.store(first.get());
    session = std::make_unique<TuningSession>(live, first, std::make_unique<ValidationData>(w, 1), o, nullptr,
                                              nullptr, std::move(source));
    live.tuning.store(session->active());
    session->step();
  }

  // One call, as Dispatcher::tuning_call makes it; a settled call costs the incumbent only.
  void call() {
    const Kernel& incumbent = *live.incumbent.load();
    const double incumbent_s = machine.seconds(incumbent);
    if (!live.tuning.load()) return;
    const uint64_t n = live.calls.fetch_add(1) + 1;
    bool step = n == live.wake_at.load();
    double s = incumbent_s;
    if (Trial* t = live.trial.load(); t && t->enter()) {
      if (const Trial::Slot slot = t->take(); slot.kernel) {
        s = machine.seconds(*slot.kernel);
        if (slot.kernel != &incumbent) ++raced[slot.kernel->config.text()];
        step = t->record(slot.index, s) || step;
      }
      t->leave();
    }
    tuning_s += s;
    extra_s += s - incumbent_s;
    worst_share = std::max(worst_share, extra_s / tuning_s);
    if (step) session->step();
  }

  // Calls until the session settles (false if it has not after `most`).
  bool until_settled(int most = 2'000'000) {
    for (int i = 0; i < most; ++i) {
      if (!live.tuning.load()) return session->report().state == "settled";
      call();
    }
    return false;
  }
};

// Screening by real validation runs is off: the call times here are the simulated machine's.
TuningOptions options() {
  return {.proposals = 48, .settle_rounds = 2, .max_candidates = 8, .screen_ratio = 0.0, .seed = 7};
}

TEST(TuningSession, CandidatesRaceWithinTheDefaultBudgetAndOnlyFasterOnesArePromoted) {
  Traffic t(options());
  ASSERT_EQ(options().budget, 0.02);
  ASSERT_TRUE(t.until_settled());
  const TuningReport r = t.session->report();
  ASSERT_GE(r.measured, 3u) << "enough candidates raced for the budget to matter";
  // Within the budget after every call, not only in the end: a stage opens only when its
  // priced cost keeps the share within it, counted with the stage's own time.
  EXPECT_LE(t.worst_share, 0.02) << "exploration overhead at its worst";
  EXPECT_GT(t.extra_s, 0.0) << "slower candidates raced: the budget was used";
  // The session's own account of it agrees with the one kept here.
  EXPECT_NEAR(r.overhead_s, t.extra_s, 1e-9);
  // Racing is exact here: a candidate faster by more than the margin may win, never a slower one.
  EXPECT_LE(t.machine.seconds(*t.live.incumbent.load()), 1e-3);
  EXPECT_EQ(r.incumbent_config, t.live.incumbent.load()->config.text());
}

TEST(TuningSession, ADriftWakesTuningWithNewCandidatesAfterItSettledAtTheCandidateCap) {
  TuningOptions o = options();
  o.max_candidates = 3;
  o.settle_rounds = 100;  // it settles at the cap
  o.budget = 0.2;
  Traffic t(o);
  ASSERT_TRUE(t.until_settled());
  const size_t compiled = t.session->report().compiled;
  ASSERT_EQ(compiled, 3u);

  // Every call now takes 1.5x its settled time: the sampled calls tell the session.
  t.machine.slowdown = 1.5;
  bool full = false;
  for (uint32_t i = 0; i < LiveTuning::kDriftSamples; ++i)
    ASSERT_TRUE(t.live.drift_sample(t.machine.seconds(*t.live.incumbent.load()), full));
  ASSERT_TRUE(full);
  t.session->step();
  ASSERT_EQ(t.session->report().state, "tuning");
  ASSERT_TRUE(t.until_settled());
  EXPECT_EQ(t.session->report().compiled, compiled + 3) << "as many new candidates as the cap allows";
}

// Racing drops a candidate as soon as it cannot plausibly win: in stages of 1, 3 and 4 pairs,
// far slower on its first pair (over 1.5x), clearly slower after four (over 1.2x), not faster
// after eight.
TEST(TuningSession, ACandidateIsDroppedAfterAsFewPairsAsItsSlownessAllows) {
  for (const auto& [factor, pairs] : std::vector<std::pair<double, int>>{{2.0, 1}, {1.3, 4}, {1.1, 8}, {1.0, 8}}) {
    TuningOptions o = options();
    o.budget = 1.0;
    o.max_candidates = 4;
    Traffic t(o);
    t.machine.candidates = factor;
    ASSERT_TRUE(t.until_settled()) << factor;
    const TuningReport r = t.session->report();
    EXPECT_EQ(r.promoted, 0u) << factor;
    ASSERT_EQ(t.raced.size(), r.measured) << factor;
    ASSERT_GE(r.measured, 3u) << factor;
    for (const auto& [c, calls] : t.raced) EXPECT_EQ(calls, pairs) << "candidates at " << factor << "x: " << c;
  }
}

// Screening by the time of a candidate's validation run (real, unlike the calls here): with
// a bound below any run's time every candidate that validates is dropped unraced, and the
// session settles on its first kernel; with none (options()), the same candidates race.
TEST(TuningSession, ScreenedCandidatesNeverRace) {
  TuningOptions o = options();
  o.screen_ratio = 1e-9;
  Traffic t(o);
  ASSERT_TRUE(t.until_settled());
  const TuningReport r = t.session->report();
  EXPECT_GT(r.compiled, 0u);
  EXPECT_EQ(r.validated, 0u);
  EXPECT_EQ(r.rejected, r.compiled);
  EXPECT_EQ(r.measured, 0u);
  EXPECT_TRUE(t.raced.empty());
  EXPECT_EQ(r.incumbent_config, t.machine.first_config);

  Traffic unscreened(options());
  ASSERT_TRUE(unscreened.until_settled());
  EXPECT_GT(unscreened.session->report().measured, 0u);
}

TEST(TuningSession, ACandidateFasterWithConfidenceIsPromoted) {
  TuningOptions o = options();
  o.budget = 1.0;
  o.max_candidates = 4;
  Traffic t(o);
  t.machine.candidates = 0.9;
  ASSERT_TRUE(t.until_settled());
  const TuningReport r = t.session->report();
  // The first one wins; the others tie with it (0.9 against 0.9) and are dropped.
  EXPECT_EQ(r.promoted, 1u);
  EXPECT_NE(r.incumbent_config, t.machine.first_config);
  EXPECT_NEAR(t.machine.seconds(*t.live.incumbent.load()), 0.9e-3, 1e-12);
}

// A source of its own, as the pretrained policy will be: it proposes only configs with one
// knob at a value the first kernel does not have (unrolled once, or twice if the first kernel
// is), so every config the session races — picked, or synthesised from the picks' cluster —
// shows where it came from.
class MarkedSource final : public CandidateSource {
 public:
  std::string mark;
  int rounds = 0;
  std::vector<Config> propose(const Space& space, const Config& incumbent, size_t count,
                              std::mt19937_64& rng) override {
    ++rounds;
    if (mark.empty()) mark = incumbent.text().find(" unroll=1 ") == std::string::npos ? " unroll=1 " : " unroll=2 ";
    std::vector<Config> out;
    for (const Config& c : space.sample_distinct(rng, 8 * count))
      if (out.size() < count && c.text().find(mark) != std::string::npos) out.push_back(c);
    return out;
  }
};

TEST(TuningSession, CandidatesComeFromTheSourceItIsGiven) {
  auto source = std::make_unique<MarkedSource>();
  const MarkedSource& used = *source;
  TuningOptions o = options();
  o.budget = 0.2;
  Traffic t(o, std::move(source));
  ASSERT_TRUE(t.until_settled());
  EXPECT_GE(used.rounds, 1);
  ASSERT_FALSE(t.raced.empty());
  for (const auto& [c, calls] : t.raced) EXPECT_NE(c.find(used.mark), std::string::npos) << c;
}

}  // namespace
}  // namespace livetune
