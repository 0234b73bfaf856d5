// sampler/statistics: the medians, intervals and racing verdicts that decide between kernels.
// Intervals are checked against coverages computed by hand from the binomial distribution.
#include <gtest/gtest.h>

#include <vector>

#include "sampler/statistics.hpp"

namespace livetune {
namespace {

TEST(Median, OddCountIsTheMiddleValue) { EXPECT_EQ(median({5.0, 1.0, 3.0}), 3.0); }

TEST(Median, EvenCountIsTheMeanOfTheMiddleTwo) { EXPECT_EQ(median({4.0, 1.0, 10.0, 2.0}), 3.0); }

TEST(Median, EmptyAndSingle) {
  EXPECT_EQ(median({}), 0.0);
  EXPECT_EQ(median({7.0}), 7.0);
}

// Coverage 1 - 2 P(B <= r-1), B ~ Bin(n, 1/2): n = 11 gives x(2)..x(10) at 98.8% (x(3)..x(9)
// would be only 93.5%); n = 5 cannot reach 95% (the whole range covers 93.75%).
TEST(MedianInterval, OrderStatisticsThatCoverTheMedian) {
  std::vector<double> eleven{11, 3, 7, 1, 9, 5, 2, 10, 4, 8, 6};
  Interval i = median_interval(eleven);
  EXPECT_EQ(i.lo, 2.0);
  EXPECT_EQ(i.hi, 10.0);
  Interval wider = median_interval(eleven, 0.99);  // 98.8% is not enough: x(1)..x(11)
  EXPECT_EQ(wider.lo, 1.0);
  EXPECT_EQ(wider.hi, 11.0);
  Interval narrower = median_interval(eleven, 0.9);
  EXPECT_EQ(narrower.lo, 3.0);
  EXPECT_EQ(narrower.hi, 9.0);
}

TEST(MedianInterval, FewValuesGiveTheWholeRange) {
  Interval i = median_interval({4, 2, 5, 1, 3});
  EXPECT_EQ(i.lo, 1.0);
  EXPECT_EQ(i.hi, 5.0);
  Interval none = median_interval({});
  EXPECT_EQ(none.lo, 0.0);
  EXPECT_EQ(none.hi, 0.0);
}

TEST(Race, FasterOnlyWhenTheWholeIntervalIsBelowTheMargin) {
  // Eleven pairs: the 95% interval is x(2)..x(10).
  std::vector<double> ratios{0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.96, 0.97, 0.97, 1.05};
  EXPECT_EQ(race(ratios, 0.02), Verdict::faster);      // x(10) = 0.97 < 0.98
  EXPECT_EQ(race(ratios, 0.05), Verdict::undecided);   // 0.97 is not below 0.95
  ratios[9] = 0.99;                                    // x(10) = 0.99 now
  EXPECT_EQ(race(ratios, 0.02), Verdict::undecided);
}

TEST(Race, SlowerWhenTheWholeIntervalIsAboveOne) {
  EXPECT_EQ(race({1.2, 1.3, 1.1, 1.25, 1.4, 1.3, 1.2, 1.15, 1.3, 1.2, 0.95}, 0.02), Verdict::slower);
  // Six pairs give the whole range (it covers the median with 1 - 2/64 > 95%): one pair below
  // 1 keeps it undecided.
  EXPECT_EQ(race({1.2, 1.3, 1.1, 1.25, 1.4, 1.2}, 0.02), Verdict::slower);
  EXPECT_EQ(race({1.2, 1.3, 0.99, 1.25, 1.4, 1.2}, 0.02), Verdict::undecided);
}

TEST(Race, TooFewPairsForTheConfidenceNeverDecide) {
  // Five pairs cover the median with only 1 - 2/32 < 95%, one pair with nothing: a single
  // lucky pair must not promote a candidate.
  EXPECT_EQ(race({1.2, 1.3, 1.1, 1.25, 1.4}, 0.02), Verdict::undecided);
  EXPECT_EQ(race({0.5}, 0.02), Verdict::undecided);
  EXPECT_EQ(race({2.0}, 0.02), Verdict::undecided);
  EXPECT_EQ(race({}, 0.02), Verdict::undecided);
  EXPECT_EQ(race({0.5, 0.5, 0.5}, 0.02, 0.7), Verdict::faster) << "three pairs cover it with 75%";
}

}  // namespace
}  // namespace livetune
