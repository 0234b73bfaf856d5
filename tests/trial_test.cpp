// sampler/trial: the slots of one racing stage — the order of the kernels within pairs, the
// one call that fills the stage, the times given back per pair, closing, and many callers
// taking slots at once.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "sampler/trial.hpp"

namespace livetune {
namespace {

TEST(Trial, PairsAlternateWhichKernelRunsFirst) {
  const Kernel incumbent, candidate;
  Trial t(&incumbent, &candidate, 4);
  const std::vector<const Kernel*> want = {&incumbent, &candidate, &candidate, &incumbent,
                                           &incumbent, &candidate, &candidate, &incumbent};
  for (size_t i = 0; i < want.size(); ++i) {
    const Trial::Slot s = t.take();
    EXPECT_EQ(s.index, int(i));
    EXPECT_EQ(s.kernel, want[i]) << "slot " << i;
  }
  EXPECT_EQ(t.take().kernel, nullptr) << "a full stage has no slot left";
}

TEST(Trial, TimesComeBackPerPairAndOnlyTheLastRecordFillsTheStage) {
  const Kernel incumbent, candidate;
  Trial t(&incumbent, &candidate, 3);
  // Slot i of kernel k takes 10·(i + 1) ms, +1 ms for the candidate.
  std::vector<int> filled_by;
  for (int i = 0; i < 6; ++i) {
    const Trial::Slot s = t.take();
    const double seconds = 0.01 * (i + 1) + (s.kernel == &candidate ? 0.001 : 0.0);
    if (t.record(s.index, seconds)) filled_by.push_back(i);
  }
  EXPECT_EQ(filled_by, std::vector<int>{5});
  EXPECT_TRUE(t.full());
  // Pair 0: slots 0 (incumbent), 1 (candidate); pair 1: 2 (candidate), 3; pair 2: 4, 5.
  const std::vector<double> inc = t.incumbent_seconds(), cand = t.candidate_seconds();
  ASSERT_EQ(inc.size(), 3u);
  ASSERT_EQ(cand.size(), 3u);
  EXPECT_DOUBLE_EQ(inc[0], 0.01);
  EXPECT_DOUBLE_EQ(cand[0], 0.021);
  EXPECT_DOUBLE_EQ(cand[1], 0.031);
  EXPECT_DOUBLE_EQ(inc[1], 0.04);
  EXPECT_DOUBLE_EQ(inc[2], 0.05);
  EXPECT_DOUBLE_EQ(cand[2], 0.061);
}

TEST(Trial, NoCallerEntersAClosedStageAndIdleWaitsForTheLastOne) {
  const Kernel incumbent, candidate;
  Trial t(&incumbent, &candidate, 2);
  ASSERT_TRUE(t.enter());
  EXPECT_FALSE(t.idle()) << "not closed yet";
  t.close();
  EXPECT_FALSE(t.idle()) << "a caller is still inside";
  EXPECT_FALSE(t.enter());
  t.leave();
  EXPECT_TRUE(t.idle());
}

TEST(Trial, ConcurrentCallersTakeEachSlotOnceAndOneFillsTheStage) {
  const Kernel incumbent, candidate;
  constexpr int kPairs = Trial::kMaxPairs, kThreads = 4;
  Trial t(&incumbent, &candidate, kPairs);
  std::vector<std::atomic<int>> taken(2 * kPairs);
  std::atomic<int> fills{0}, candidate_calls{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&] {
      for (int call = 0; call < 3 * kPairs; ++call) {
        if (!t.enter()) continue;
        const Trial::Slot s = t.take();
        if (s.kernel) {
          taken[size_t(s.index)].fetch_add(1);
          if (s.kernel == &candidate) candidate_calls.fetch_add(1);
          if (t.record(s.index, 1e-3)) fills.fetch_add(1);
        }
        t.leave();
      }
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < 2 * kPairs; ++i) EXPECT_EQ(taken[size_t(i)].load(), 1) << "slot " << i;
  EXPECT_EQ(fills.load(), 1);
  EXPECT_EQ(candidate_calls.load(), kPairs);
  EXPECT_TRUE(t.full());
}

}  // namespace
}  // namespace livetune
