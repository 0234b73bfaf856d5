#include "sampler/round_plan.hpp"

#include <algorithm>

#include "sampler/clustering.hpp"
#include "sampler/synthesis.hpp"

namespace livetune {
namespace {

// Knobs whose cluster mean is worth keeping: numeric ones the model finds influential (all
// numeric ones before it has any say). Enums never: the mean of two loop orders is neither.
std::vector<bool> dominant_knobs(const Space& space, const CostModel& model, const RoundOptions& o) {
  const KnobList& knobs = space.knobs();
  const std::vector<double> influence = model.samples() >= o.model_after ? model.knob_influence() : std::vector<double>{};
  const double top = influence.empty() ? 0.0 : *std::max_element(influence.begin(), influence.end());
  std::vector<bool> out(knobs.size());
  for (size_t k = 0; k < knobs.size(); ++k)
    out[k] = knobs[k].labels.empty() && (influence.empty() || influence[k] >= o.dominant * top);
  return out;
}

}  // namespace

RoundPlan plan_round(const Space& space, const std::vector<Config>& proposals, const CostModel& model,
                     const std::function<bool(const Config&)>& measured, const RoundOptions& options,
                     uint64_t seed) {
  RoundPlan plan;
  plan.proposed = proposals.size();
  std::vector<Config> kept = proposals;
  if (model.samples() >= options.model_after && kept.size() > 1) {
    std::vector<std::pair<double, size_t>> ranked;
    for (size_t i = 0; i < kept.size(); ++i) ranked.emplace_back(model.predict(kept[i]), i);
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    const size_t keep = std::max<size_t>(1, size_t(double(kept.size()) * options.keep_share));
    std::vector<Config> best;
    for (size_t i = 0; i < keep; ++i) best.push_back(kept[ranked[i].second]);
    kept = std::move(best);
  }
  plan.kept = kept.size();
  if (kept.empty()) return plan;

  std::vector<Point> features;
  for (const Config& c : kept) features.push_back(c.features());
  const std::vector<Point> points = normalise(features);
  const Clusters clusters = cluster_at_knee(points, options.max_clusters, seed);
  plan.clusters = clusters.centroids.size();
  const std::vector<int> centre = representatives(points, clusters);
  const std::vector<bool> dominant = dominant_knobs(space, model, options);

  auto usable = [&](const Config& c) {
    return !measured(c) && std::find(plan.to_measure.begin(), plan.to_measure.end(), c) == plan.to_measure.end();
  };
  for (size_t j = 0; j < clusters.centroids.size(); ++j) {
    const Config& pick = kept[size_t(centre[j])];
    if (space.valid(pick) && usable(pick)) {
      plan.to_measure.push_back(pick);
      continue;
    }
    std::vector<Config> members;
    for (size_t i = 0; i < kept.size(); ++i)
      if (clusters.of[i] == int(j)) members.push_back(kept[i]);
    if (auto made = synthesise(space, members, dominant, usable)) {
      plan.to_measure.push_back(*made);
      ++plan.synthesised;
    }
  }
  return plan;
}

}  // namespace livetune
