#pragma once
// The statistics that decide between kernels on a shared, noisy machine: medians, and a
// distribution-free confidence interval for a median, so that a decision rests on samples
// paired in time (ratios of two kernels measured side by side) rather than on absolute times
// that drift with the machine's phase.
#include <vector>

namespace livetune {

// Median of the values (mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

// A confidence interval for the median: the order statistics x(r) and x(n+1-r), with r the
// largest for which they cover the median with at least `confidence` (from the binomial
// distribution of how many values fall below it: the sign test's interval). Too few values
// for that confidence give the whole range; none give {0, 0}.
struct Interval {
  double lo = 0.0, hi = 0.0;
};
Interval median_interval(std::vector<double> values, double confidence = 0.95);

// Racing a candidate against the incumbent on pairs of calls taken side by side: `ratios` are
// candidate time / incumbent time, one per pair. faster: with `confidence`, the median ratio
// is below 1 - margin; slower: it is above 1 (the candidate can be dropped early); else
// undecided (more pairs, or give up at a bound of the caller's). Too few pairs for the
// confidence (6 for 95%) are always undecided.
enum class Verdict { undecided, faster, slower };
Verdict race(const std::vector<double>& ratios, double margin, double confidence = 0.95);

}  // namespace livetune
