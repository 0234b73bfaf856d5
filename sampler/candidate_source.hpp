#pragma once
// Where a tuning session's proposals come from. The pretrained policy of a later issue plugs
// in here (its search proposes); until then ModelFreeSource: random valid configs, and local
// moves around the incumbent (one or two knobs stepped to a neighbouring value), since the
// fastest configs sit near good ones far more often than anywhere at random.
#include <cstddef>
#include <random>
#include <vector>

#include "jit/space.hpp"

namespace livetune {

class CandidateSource {
 public:
  virtual ~CandidateSource() = default;
  // Up to `count` distinct valid configs of `space`, none equal to `incumbent`.
  virtual std::vector<Config> propose(const Space& space, const Config& incumbent, size_t count,
                                      std::mt19937_64& rng) = 0;
};

class ModelFreeSource final : public CandidateSource {
 public:
  // local_share: the part of each batch made of local moves around the incumbent.
  explicit ModelFreeSource(double local_share = 0.75) : local_share_(local_share) {}
  std::vector<Config> propose(const Space& space, const Config& incumbent, size_t count,
                              std::mt19937_64& rng) override;

 private:
  double local_share_;
};

}  // namespace livetune
