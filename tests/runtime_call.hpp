#pragma once
// One Runtime::matmul call of a test problem through the public API.
#include <vector>

#include "livetune/livetune.hpp"
#include "test_util.hpp"

namespace livetune::test {

inline Activation to_api(ActivationKind a) {
  return a == ActivationKind::relu ? Activation::relu : a == ActivationKind::gelu ? Activation::gelu : Activation::none;
}

// One call of the problem's workload on its inputs, into `c`; with `rows`, on its first rows
// only (M varies from call to call).
inline void call(Runtime& rt, const Problem& p, std::vector<float>& c, int64_t rows = 0) {
  const Workload& w = p.w;
  const int64_t m = rows > 0 ? rows : w.m;
  const TensorView bias = TensorView::vector(p.bias.data(), w.n);
  MatmulOptions opts;
  opts.trans_b = w.trans_b;
  opts.bias = w.bias ? &bias : nullptr;
  opts.activation = to_api(w.act);
  opts.beta = w.beta;
  rt.matmul(TensorView::matrix(p.a.data(), m, w.k, w.lda), TensorView::matrix(p.b.data(), w.b_rows(), w.b_cols(), w.ldb),
            TensorView::matrix(c.data(), m, w.n, w.ldc), opts);
}

}  // namespace livetune::test
