#include "sampler/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace livetune {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2 == 1) return values[mid];
  double upper = values[mid];
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return 0.5 * (lower + upper);
}

Interval median_interval(std::vector<double> values, double confidence) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  // below[i] = P(B <= i) for B ~ Binomial(n, 1/2); [x(r), x(n+1-r)] covers the median with
  // probability 1 - 2 P(B <= r - 1).
  std::vector<double> below(n + 1);
  double term = std::pow(0.5, double(n)), sum = 0.0;
  for (size_t i = 0; i <= n; ++i) {
    sum += term;
    below[i] = sum;
    term *= double(n - i) / double(i + 1);
  }
  size_t r = 1;
  while (2 * (r + 1) <= n + 1 && 1.0 - 2.0 * below[r] >= confidence) ++r;
  return {values[r - 1], values[n - r]};
}

Verdict race(const std::vector<double>& ratios, double margin, double confidence) {
  // Below this many pairs even the whole range covers the median with less than `confidence`
  // (1 - 2·0.5^n): no verdict, however the few ratios look.
  if (1.0 - 2.0 * std::pow(0.5, double(ratios.size())) < confidence) return Verdict::undecided;
  const Interval i = median_interval(ratios, confidence);
  if (i.hi < 1.0 - margin) return Verdict::faster;
  if (i.lo > 1.0) return Verdict::slower;
  return Verdict::undecided;
}

}  // namespace livetune
