#pragma once
// One Runtime::matmul call of a test problem through the public API.
#include <vector>

#include "livetune/livetune.hpp"
#include "test_util.hpp"

namespace livetune::test {

inline Activation to_api(ActivationKind a) {
  return a == ActivationKind::relu ? Activation::relu : a == ActivationKind::gelu ? Activation::gelu : Activation::none;
}

// One call of the problem's workload on its inputs, into `c`.
inline void call(Runtime& rt, const Problem& p, std::vector<float>& c) {
  const Workload& w = p.w;
  const TensorView bias = TensorView::vector(p.bias.data(), w.n);
  MatmulOptions opts;
  opts.trans_b = w.trans_b;
  opts.bias = w.bias ? &bias : nullptr;
  opts.activation = to_api(w.act);
  opts.beta = w.beta;
  rt.matmul(TensorView::matrix(p.a.data(), w.m, w.k, w.lda), TensorView::matrix(p.b.data(), w.b_rows(), w.b_cols(), w.ldb),
            TensorView::matrix(c.data(), w.m, w.n, w.ldc), opts);
}

}  // namespace livetune::test
