// Online tuning through the dispatcher: while a workload tunes, every call still returns the
// reference's result (only validated candidates meet live calls), the session's counts add up,
// and it settles; a frozen session and a zero budget never race a candidate. Timing decides
// which candidate wins, so these tests assert what holds whatever the timings are.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/reference.hpp"
#include "jit/target.hpp"
#include "policy/default_rule.hpp"
#include "runtime/constant_operand.hpp"
#include "runtime/dispatcher.hpp"
#include "test_util.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

using test::Problem;

// A few inputs to rotate through, so that calls do not all see the same data.
std::vector<Problem> problems(const Workload& w, int count) {
  std::vector<Problem> out;
  for (int i = 0; i < count; ++i) out.emplace_back(w, uint64_t(100 + i));
  return out;
}

// `calls` calls through the dispatcher, each checked against the reference; the failures.
// With `constant_b` (made from ps[0].b), every problem must share that B.
std::string call_and_check(Dispatcher& d, const std::vector<Problem>& ps, int calls, int offset = 0,
                           const std::shared_ptr<ConstantOperand>& constant_b = nullptr) {
  std::string failures;
  for (int i = 0; i < calls; ++i) {
    const Problem& p = ps[size_t(i + offset) % ps.size()];
    std::vector<float> c = p.c0;
    d.matmul(p.w, p.a.data(), p.b.data(), p.bias_ptr(), c.data(), constant_b);
    const std::string diff = test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0));
    if (!diff.empty()) failures += "call " + std::to_string(i + offset) + ": " + diff + "\n";
  }
  return failures;
}

TuningReport report_of(const Dispatcher& d, const Workload& w) {
  for (const WorkloadSnapshot& s : d.snapshot())
    if (s.workload == w) return s.tuning;
  return {};
}

TuningOptions quick() {
  TuningOptions o;
  o.budget = 1.0;  // explore on every call the stages allow: the test is about the mechanics
  o.proposals = 48;
  o.max_candidates = 6;
  o.settle_rounds = 1;
  o.seed = 7;
  return o;
}

TEST(Tuning, EveryCallIsRightWhileCandidatesRaceAndTheSessionSettles) {
  const Workload w = test::epi(test::mm(37, 70, 45), true, ActivationKind::relu);
  const std::vector<Problem> ps = problems(w, 5);
  Dispatcher d(1, 1, quick());
  TuningReport r;
  int calls = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int batch = 0; batch < 400 && r.state != "settled"; ++batch) {
    ASSERT_EQ(call_and_check(d, ps, 16, calls), "") << test::describe(w);
    calls += 16;
    d.wait_idle();
    r = report_of(d, w);
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.state, "settled") << "after " << calls << " calls";
  EXPECT_GT(r.calls_to_settle, 0u);
  EXPECT_LE(r.calls_to_settle, uint64_t(calls));
  EXPECT_GT(r.seconds_to_settle, 0.0);
  EXPECT_LE(r.seconds_to_settle, elapsed) << "counted from the first call, which the test timed";
  EXPECT_GE(r.proposed, r.compiled);
  EXPECT_GE(r.compiled, r.validated);
  EXPECT_GE(r.validated, r.measured);
  EXPECT_GE(r.measured, 1u) << "a budget of 1 lets every candidate race";
  EXPECT_GE(r.measured, r.promoted);
  EXPECT_LE(r.compiled, size_t(quick().max_candidates));
  EXPECT_GT(r.incumbent_s, 0.0);
  EXPECT_GT(r.first_s, 0.0);
  EXPECT_GT(r.total_s, 0.0);
  EXPECT_TRUE(gemm_space(w, Target::host()).valid(gemm_space(w, Target::host()).parse(r.incumbent_config)));
  EXPECT_EQ(r.stages_held, 0u) << "no caller is inside a stage: all are freed";
  // Settled: calls are no longer counted, and still right.
  const uint64_t counted = r.calls;
  ASSERT_EQ(call_and_check(d, ps, 20), "");
  d.wait_idle();
  EXPECT_EQ(report_of(d, w).calls, counted);
}

TEST(Tuning, ABucketOfMRacesCandidatesOnCallsOfEveryMAndEveryCallIsRight) {
  // The family's first M (20) keeps a workload of its own; Ms of 33..64 share their bucket's.
  const Workload first = test::epi(test::mm(20, 70, 45), true, ActivationKind::gelu);
  std::vector<Problem> ps;
  for (int64_t m : {33, 64, 41, 50, 37, 59, 46}) {
    Workload w = first;
    w.m = m;
    ps.emplace_back(w, uint64_t(300 + m));
  }
  Workload bucket = first;
  bucket.m = 64, bucket.min_m = 33;
  Dispatcher d(1, 1, quick());
  ASSERT_EQ(call_and_check(d, problems(first, 1), 1), "");
  TuningReport r;
  int calls = 0;
  for (int batch = 0; batch < 400 && r.state != "settled"; ++batch) {
    ASSERT_EQ(call_and_check(d, ps, 14, calls), "");
    calls += 14;
    d.wait_idle();
    r = report_of(d, bucket);
  }
  ASSERT_EQ(r.state, "settled") << "after " << calls << " calls";
  EXPECT_GE(r.measured, 1u);
  EXPECT_EQ(d.snapshot().size(), 2u) << "the first M's workload and the bucket's";
  ASSERT_EQ(call_and_check(d, ps, 14), "");
}

TEST(Tuning, OnAConstantBCandidatesWaitForTheirPackedCopyAndEveryCallIsRight) {
  const Workload w = test::mm(30, 96, 64);
  // One B for every call, as a layer's weights: only A changes from call to call.
  std::vector<Problem> ps = problems(w, 1);
  for (uint64_t seed : {201, 202, 203}) {
    Problem p(w, seed);
    p.b = ps[0].b;
    p.want = p.c0;
    reference_matmul(w, p.a.data(), p.b.data(), p.bias_ptr(), p.want.data());
    ps.push_back(std::move(p));
  }
  auto constant_b = std::make_shared<ConstantOperand>(ps[0].b.data());
  Dispatcher d(1, 1, quick());
  TuningReport r;
  int calls = 0;
  for (int batch = 0; batch < 400 && r.state != "settled"; ++batch) {
    ASSERT_EQ(call_and_check(d, ps, 16, calls, constant_b), "") << test::describe(w);
    calls += 16;
    d.wait_idle();
    r = report_of(d, w);
  }
  ASSERT_EQ(r.state, "settled") << "after " << calls << " calls";
  EXPECT_GE(r.measured, 1u);
}

TEST(Tuning, FrozenKeepsTheFirstKernel) {
  const Workload w = test::mm(40, 33, 20);
  const std::vector<Problem> ps = problems(w, 3);
  TuningOptions o = quick();
  o.enabled = false;
  Dispatcher d(1, 1, o);
  ASSERT_EQ(call_and_check(d, ps, 1), "");
  d.wait_idle();
  ASSERT_EQ(call_and_check(d, ps, 50), "");
  d.wait_idle();
  const WorkloadSnapshot s = d.snapshot().at(0);
  EXPECT_EQ(s.tuning.state, "frozen");
  EXPECT_EQ(s.tuning.incumbent_config, s.first->config.text());
  EXPECT_EQ(s.tuning.calls, 0u);
  EXPECT_EQ(s.tuning.compiled, 0u);
}

TEST(Tuning, AZeroBudgetSettlesOnTheFirstKernelWithoutRacing) {
  const Workload w = test::mm(24, 48, 31);
  const std::vector<Problem> ps = problems(w, 3);
  TuningOptions o = quick();
  o.budget = 0.0;
  Dispatcher d(1, 1, o);
  int calls = 0;
  for (int batch = 0; batch < 20; ++batch) {
    ASSERT_EQ(call_and_check(d, ps, 10, calls), "");
    calls += 10;
    d.wait_idle();
  }
  const TuningReport r = report_of(d, w);
  EXPECT_EQ(r.state, "settled");
  EXPECT_EQ(r.compiled, 0u);
  EXPECT_EQ(r.measured, 0u);
  EXPECT_EQ(r.overhead_s, 0.0);
  EXPECT_GT(r.incumbent_s, 0.0) << "the baseline stage times the incumbent at no extra cost";
  EXPECT_EQ(r.incumbent_config, d.snapshot().at(0).first->config.text());
}

TEST(TuningConcurrency, FourCallersGetRightResultsWhileTuning) {
  // M = 50 first (a workload of its own), then 40 and 57 (the bucket 33..64): two sessions.
  std::vector<Problem> ps;
  for (int64_t m : {50, 40, 57, 50}) ps.emplace_back(test::mm(m, 64, 40, true), uint64_t(400 + m));
  Dispatcher d(1, 1, quick());
  ASSERT_EQ(call_and_check(d, ps, 1), "");
  std::vector<std::string> failures(4);
  std::vector<std::thread> callers;
  for (size_t t = 0; t < failures.size(); ++t)
    callers.emplace_back([&, t] { failures[t] = call_and_check(d, ps, 300, int(t)); });
  for (auto& th : callers) th.join();
  d.wait_idle();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  ASSERT_EQ(d.snapshot().size(), 2u);
  for (const WorkloadSnapshot& s : d.snapshot()) EXPECT_GE(s.tuning.validated, s.tuning.measured) << s.workload.text();
}

// A session settled from a record, handed the sampled times of its settled calls.
struct SettledSession {
  LiveTuning live;
  std::unique_ptr<TuningSession> session;
  explicit SettledSession(double recorded_s) {
    const Workload w = test::mm(16, 32, 8);
    KernelPtr k = compile_gemm(w, default_gemm_config(w, Target::host(), 1));
    TuningReport recorded;
    recorded.state = "settled";
    recorded.incumbent_s = recorded_s;
    live.incumbent = k.get();
    session = std::make_unique<TuningSession>(live, k, std::make_unique<ValidationData>(w, 1), quick(), &recorded);
  }
  void sample_all(double seconds) {
    bool full = false;
    for (uint32_t i = 0; i < LiveTuning::kDriftSamples; ++i) ASSERT_TRUE(live.drift_sample(seconds, full));
    ASSERT_TRUE(full);
    bool ignored = false;
    EXPECT_FALSE(live.drift_sample(seconds, ignored)) << "a full set of samples takes no more";
  }
};

TEST(TuningDrift, ASettledWorkloadTunesAgainWhenItsCallsAreSustainedSlower) {
  SettledSession s(1e-3);
  ASSERT_EQ(s.session->report().state, "settled");
  ASSERT_FALSE(s.live.tuning.load());
  s.sample_all(1.3e-3);
  s.session->step();
  EXPECT_EQ(s.session->report().state, "tuning");
  EXPECT_TRUE(s.live.tuning.load());
  EXPECT_NE(s.live.trial.load(), nullptr) << "it starts with a new baseline of the incumbent";
}

TEST(TuningDrift, WithinTheMarginItStaysSettledAndSamplesAgain) {
  SettledSession s(1e-3);
  s.sample_all(1.1e-3);
  s.session->step();
  EXPECT_EQ(s.session->report().state, "settled");
  EXPECT_FALSE(s.live.tuning.load());
  bool full = false;
  EXPECT_TRUE(s.live.drift_sample(1e-3, full)) << "sampling starts over";
}

}  // namespace
}  // namespace livetune
