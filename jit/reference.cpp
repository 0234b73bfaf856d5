#include "jit/reference.hpp"

#include <cmath>
#include <vector>

namespace livetune {

double apply_activation(ActivationKind act, double x) {
  switch (act) {
    case ActivationKind::none: return x;
    case ActivationKind::relu: return x > 0 ? x : 0;
    case ActivationKind::gelu: return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  }
  return x;
}

void reference_matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c,
                      int64_t row_begin, int64_t row_end) {
  if (row_end < 0) row_end = w.m;
  for (int64_t i = row_begin; i < row_end; ++i) {
    for (int64_t j = 0; j < w.n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < w.k; ++p) {
        double bv = w.trans_b ? b[j * w.ldb + p] : b[p * w.ldb + j];
        sum += double(a[i * w.lda + p]) * bv;
      }
      if (w.bias) sum += bias[j];
      if (w.beta != 0.0f) sum += double(w.beta) * c[i * w.ldc + j];
      c[i * w.ldc + j] = float(apply_activation(w.act, sum));
    }
  }
}

double matmul_tolerance(const Workload& w, double max_abs_input) {
  const double eps = 1.19209290e-07;
  const double x = max_abs_input;
  const double scale = double(w.k) * x * x + (w.bias ? x : 0.0) + std::abs(double(w.beta)) * x + 1.0;
  // 4·K·eps bounds blocked FMA summation with margin; 2e-6 covers the epilogue's roundings
  // and the fast tanh of GELU.
  return (4.0 * double(w.k) * eps + 2e-6) * scale;
}

}  // namespace livetune
