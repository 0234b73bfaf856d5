#include "sampler/synthesis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace livetune {

std::optional<Config> synthesise(const Space& space, const std::vector<Config>& members,
                                 const std::vector<bool>& dominant,
                                 const std::function<bool(const Config&)>& usable) {
  if (members.empty()) return std::nullopt;
  const KnobList& knobs = space.knobs();
  std::vector<Point> features;
  for (const Config& m : members) features.push_back(m.features());
  Point mean(knobs.size(), 0.0);
  for (const Point& f : features)
    for (size_t i = 0; i < knobs.size(); ++i) mean[i] += f[i] / double(members.size());

  std::vector<int> values(knobs.size());
  for (size_t i = 0; i < knobs.size(); ++i) {
    if (dominant[i]) {
      double best = std::numeric_limits<double>::infinity();
      for (int v : knobs[i].values)
        if (const double d = std::abs(knobs[i].feature(v) - mean[i]); d < best) best = d, values[i] = v;
    } else {
      std::map<int, int> counts;
      for (const Config& m : members) ++counts[m.value(i)];
      // The most frequent; of equals, the smallest value (std::map is ordered).
      values[i] = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
                    return a.second < b.second;
                  })->first;
    }
  }
  Config made(space.knob_list(), values);
  if (space.valid(made) && usable(made)) return made;

  std::vector<size_t> order(members.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto distance = [&](size_t m) {
    double d = 0;
    for (size_t i = 0; i < knobs.size(); ++i) d += (features[m][i] - mean[i]) * (features[m][i] - mean[i]);
    return d;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return distance(x) < distance(y); });
  for (size_t m : order)
    if (space.valid(members[m]) && usable(members[m])) return members[m];
  return std::nullopt;
}

}  // namespace livetune
