#include "sampler/cost_model.hpp"

#include <Eigen/Dense>
#include <cmath>

namespace livetune {

void CostModel::add(const Config& c, double seconds) {
  x_.push_back(c.features());
  y_.push_back(std::log(seconds));
}

std::vector<double> CostModel::terms(const std::vector<double>& f) const {
  std::vector<double> t(f);
  for (double v : f) t.push_back(v * v);
  return t;
}

void CostModel::fit() {
  if (y_.empty()) return;
  const Eigen::Index n = Eigen::Index(y_.size());
  const Eigen::Index d = Eigen::Index(terms(x_[0]).size());
  Eigen::MatrixXd t(n, d);
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::vector<double> row = terms(x_[size_t(i)]);
    for (Eigen::Index j = 0; j < d; ++j) t(i, j) = row[size_t(j)];
  }
  const Eigen::Map<const Eigen::VectorXd> y(y_.data(), n);
  // Standardised terms, so that one ridge penalty treats every knob alike; a term that does
  // not vary in the samples gets weight 0.
  mean_.assign(size_t(d), 0.0), scale_.assign(size_t(d), 0.0);
  for (Eigen::Index j = 0; j < d; ++j) {
    mean_[size_t(j)] = t.col(j).mean();
    const double sd = std::sqrt((t.col(j).array() - mean_[size_t(j)]).square().mean());
    scale_[size_t(j)] = sd > 1e-12 ? 1.0 / sd : 0.0;
    t.col(j) = (t.col(j).array() - mean_[size_t(j)]) * scale_[size_t(j)];
  }
  const double intercept = y.mean();
  Eigen::MatrixXd gram = t.transpose() * t;
  gram.diagonal().array() += ridge_;
  const Eigen::VectorXd w = gram.ldlt().solve(t.transpose() * (y.array() - intercept).matrix());
  weights_.assign(1, intercept);
  for (Eigen::Index j = 0; j < d; ++j) weights_.push_back(w(j));
}

double CostModel::predict(const Config& c) const {
  if (weights_.empty()) return 0.0;
  const std::vector<double> t = terms(c.features());
  double y = weights_[0];
  for (size_t j = 0; j < t.size(); ++j) y += weights_[j + 1] * (t[j] - mean_[j]) * scale_[j];
  return y;
}

std::vector<double> CostModel::knob_influence() const {
  if (weights_.empty()) return {};
  const size_t knobs = (weights_.size() - 1) / 2;
  std::vector<double> out(knobs);
  for (size_t k = 0; k < knobs; ++k) out[k] = std::abs(weights_[1 + k]) + std::abs(weights_[1 + knobs + k]);
  return out;
}

}  // namespace livetune
