#include "sampler/synthetic_inputs.hpp"

#include <random>

namespace livetune {

SyntheticInputs::SyntheticInputs(const Workload& w, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](Floats& v, int64_t n) {
    v.resize(size_t(n));
    for (float& x : v) x = dist(rng);
  };
  fill(a, w.m * w.lda);
  fill(b, w.b_rows() * w.ldb);
  fill(bias, w.n);
  fill(c, w.m * w.ldc);
}

}  // namespace livetune
