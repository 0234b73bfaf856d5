#pragma once
// A small model of one workload's kernel time, fitted online to the session's own
// measurements: ridge regression of log(time) on the config features and their squares
// (standardised). It ranks proposals before any is compiled, and says which knobs decide
// the speed (sample synthesis keeps those at the cluster's mean).
#include <cstddef>
#include <vector>

#include "jit/space.hpp"

namespace livetune {

class CostModel {
 public:
  explicit CostModel(double ridge = 1.0) : ridge_(ridge) {}

  void add(const Config& c, double seconds);
  size_t samples() const { return y_.size(); }
  // Refits to every sample so far; a model with no samples predicts 0 for all.
  void fit();
  // log(seconds) predicted for c; comparable between configs, not an absolute time.
  double predict(const Config& c) const;
  // Per knob: how much the fitted log time moves across the knob's spread in the samples
  // (|linear weight| + |square weight|, on standardised features).
  std::vector<double> knob_influence() const;

 private:
  std::vector<double> terms(const std::vector<double>& features) const;

  double ridge_;
  std::vector<std::vector<double>> x_;  // raw features per sample
  std::vector<double> y_;               // log(seconds)
  std::vector<double> mean_, scale_;    // of each term over the samples at the last fit
  std::vector<double> weights_;         // intercept, then one per term
};

}  // namespace livetune
