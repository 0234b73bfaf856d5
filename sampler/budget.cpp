#include "sampler/budget.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace livetune {

uint64_t ExplorationBudget::calls_until(double extra, double seconds) const {
  if (allows(extra)) return 0;
  if (share_ <= 0.0 || seconds <= 0.0) return std::numeric_limits<uint64_t>::max();
  const double total_needed = (overhead_ + extra) / usable() - extra;
  return std::max<uint64_t>(1, uint64_t(std::ceil((total_needed - total_) / seconds)));
}

}  // namespace livetune
