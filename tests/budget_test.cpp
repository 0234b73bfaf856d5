// sampler/budget: the exploration overhead as a share of all call time, what a stage may
// cost, and how many calls it must wait for.
#include <gtest/gtest.h>

#include "sampler/budget.hpp"

namespace livetune {
namespace {

TEST(ExplorationBudget, AllowsAStageOnlyWithinTheShareOfAllCallTime) {
  ExplorationBudget b(0.02);
  EXPECT_FALSE(b.allows(1e-3)) << "no call time yet: any extra is over budget";
  EXPECT_TRUE(b.allows(0.0));
  b.add_calls(1000, 1e-3);  // 1 s of calls
  EXPECT_DOUBLE_EQ(b.total_s(), 1.0);
  // Of the 2%, a tenth is kept back: 0.018 · (1 + x) ≥ x  ⇔  x ≤ 0.018 / 0.982 = 0.01833
  EXPECT_TRUE(b.allows(0.0183));
  EXPECT_FALSE(b.allows(0.0184));
  b.add_extra(0.0183);
  EXPECT_NEAR(b.used(), 0.0183 / 1.0183, 1e-12) << "the share used counts what was spent, reserve or not";
  EXPECT_FALSE(b.allows(1e-4));
}

TEST(ExplorationBudget, AReserveKeepsBackItsPartOfTheShare) {
  ExplorationBudget b(0.02, ExplorationBudget::kBucketReserve);
  b.add_calls(1000, 1e-3);
  // 0.014 · (1 + x) ≥ x  ⇔  x ≤ 0.014 / 0.986 = 0.014199
  EXPECT_TRUE(b.allows(0.01419));
  EXPECT_FALSE(b.allows(0.01421));
}

TEST(ExplorationBudget, AFasterCandidatePaysBack) {
  ExplorationBudget b(0.02);
  b.add_calls(100, 1e-3);
  b.add_extra(0.002);
  EXPECT_FALSE(b.allows(0.001));
  b.add_extra(-0.002);
  EXPECT_DOUBLE_EQ(b.overhead_s(), 0.0);
  EXPECT_TRUE(b.allows(0.0015));
}

TEST(ExplorationBudget, CallsUntilIsTheFewestCallsThatAllowTheStage) {
  for (double extra : {1e-4, 3e-3, 0.05}) {
    ExplorationBudget b(0.02);
    b.add_calls(10, 1e-3);
    b.add_extra(2e-4);
    const uint64_t n = b.calls_until(extra, 1e-3);
    ASSERT_GT(n, 0u) << extra;
    ExplorationBudget fewer = b, enough = b;
    fewer.add_calls(n - 1, 1e-3);
    enough.add_calls(n, 1e-3);
    EXPECT_FALSE(fewer.allows(extra)) << extra;
    EXPECT_TRUE(enough.allows(extra)) << extra;
  }
  ExplorationBudget none(0.0);
  none.add_calls(1000, 1e-3);
  EXPECT_EQ(none.calls_until(1e-6, 1e-3), UINT64_MAX) << "a zero budget never allows extra time";
}

}  // namespace
}  // namespace livetune
