#pragma once
// One round of adaptive sampling: of many proposals, the few to compile, validate and race on
// live calls. The model (once it has measurements) keeps the more promising part; those are
// clustered in normalised feature space with k at the knee of the loss curve; each cluster
// sends its member nearest the centre, or a config synthesised from it where that one cannot
// be measured (invalid, or measured before).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "jit/space.hpp"
#include "sampler/cost_model.hpp"

namespace livetune {

struct RoundOptions {
  int max_clusters = 16;
  double keep_share = 0.5;   // of the proposals, the share the model ranks best (once fitted)
  size_t model_after = 8;    // measurements before the model ranks anything
  double dominant = 0.25;    // a numeric knob with this share of the largest influence is dominant
};

struct RoundPlan {
  std::vector<Config> to_measure;  // distinct, valid, none measured before
  size_t proposed = 0;
  size_t kept = 0;         // after the model's ranking
  size_t clusters = 0;
  size_t synthesised = 0;  // of to_measure, made by synthesis rather than picked
};

RoundPlan plan_round(const Space& space, const std::vector<Config>& proposals, const CostModel& model,
                     const std::function<bool(const Config&)>& measured, const RoundOptions& options,
                     uint64_t seed);

}  // namespace livetune
