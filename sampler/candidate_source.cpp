#include "sampler/candidate_source.hpp"

#include <algorithm>

namespace livetune {
namespace {

// The incumbent with one or two knobs moved one step along their domains.
Config local_move(const Space& space, const Config& from, std::mt19937_64& rng) {
  std::vector<int> values = from.values();
  const KnobList& knobs = space.knobs();
  const int moves = 1 + int(rng() % 2);
  for (int m = 0; m < moves; ++m) {
    const size_t k = size_t(rng() % knobs.size());
    const std::vector<int>& domain = knobs[k].values;
    const auto at = size_t(std::find(domain.begin(), domain.end(), values[k]) - domain.begin());
    if (domain.size() < 2) continue;
    const bool up = at == 0 || (at + 1 < domain.size() && rng() % 2 == 0);
    values[k] = domain[up ? at + 1 : at - 1];
  }
  return Config(space.knob_list(), std::move(values));
}

}  // namespace

std::vector<Config> ModelFreeSource::propose(const Space& space, const Config& incumbent, size_t count,
                                             std::mt19937_64& rng) {
  std::vector<Config> out;
  auto fresh = [&](const Config& c) {
    return !(c == incumbent) && std::find(out.begin(), out.end(), c) == out.end();
  };
  const size_t local = incumbent.empty() ? 0 : size_t(double(count) * local_share_);
  // Neighbourhoods are small: a bounded number of tries, the rest of the batch is random.
  for (size_t tries = 0; out.size() < local && tries < 20 * local; ++tries)
    if (Config c = local_move(space, incumbent, rng); space.valid(c) && fresh(c)) out.push_back(std::move(c));
  for (Config& c : space.sample_distinct(rng, count))
    if (out.size() < count && fresh(c)) out.push_back(std::move(c));
  return out;
}

}  // namespace livetune
