#include "runtime/m_buckets.hpp"

#include <bit>

namespace livetune {

Workload MBuckets::key(const Workload& w) const {
  // No real call has 2^40 rows; the limit keeps the arithmetic below from overflowing.
  constexpr int64_t kLargest = int64_t(1) << 40;
  int64_t lo = w.m, hi = w.m;
  if (w.m <= kLargest && rule == Rule::powers_of_two && w.m > 2) {
    hi = int64_t(std::bit_ceil(uint64_t(w.m)));
    lo = hi / 2 + 1;
  } else if (w.m <= kLargest && rule == Rule::multiples && step > 1 && step <= kLargest) {
    hi = (w.m + step - 1) / step * step;
    lo = hi - step + 1;
  }
  Workload key = w;
  key.m = hi;
  key.min_m = lo < hi ? lo : 0;
  return key;
}

}  // namespace livetune
