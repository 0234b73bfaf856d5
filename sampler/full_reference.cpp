#include "sampler/full_reference.hpp"

#include <Eigen/Core>
#include <algorithm>

#include "jit/reference.hpp"

namespace livetune {
namespace {

using Doubles = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using FloatsView =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;

}  // namespace

Floats full_reference(const Workload& w, const float* a, const float* b, const float* bias, const Floats& c_init) {
  Floats c = c_init;
  // Blocks of rows and of K: the double copies of A and B stay small beside the operands.
  constexpr int64_t kRows = 1024, kDepth = 256;
  for (int64_t i0 = 0; i0 < w.m; i0 += kRows) {
    const int64_t rows = std::min(kRows, w.m - i0);
    Doubles product = Doubles::Zero(rows, w.n);
    for (int64_t p0 = 0; p0 < w.k; p0 += kDepth) {
      const int64_t depth = std::min(kDepth, w.k - p0);
      const Doubles a_d = FloatsView(a + i0 * w.lda + p0, rows, depth, Eigen::OuterStride<>(w.lda)).cast<double>();
      if (w.trans_b) {
        const Doubles b_d = FloatsView(b + p0, w.n, depth, Eigen::OuterStride<>(w.ldb)).cast<double>();
        product.noalias() += a_d * b_d.transpose();
      } else {
        const Doubles b_d = FloatsView(b + p0 * w.ldb, depth, w.n, Eigen::OuterStride<>(w.ldb)).cast<double>();
        product.noalias() += a_d * b_d;
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      float* row = c.data() + (i0 + i) * w.ldc;
      for (int64_t j = 0; j < w.n; ++j) {
        double sum = product(i, j);
        if (w.bias) sum += bias[j];
        if (w.beta != 0.0f) sum += double(w.beta) * row[j];
        row[j] = float(apply_activation(w.act, sum));
      }
    }
  }
  return c;
}

}  // namespace livetune
