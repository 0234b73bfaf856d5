#pragma once
// Building test workloads in one line: mm(m, n, k), then padded(...) and epi(...).
#include <cstdint>
#include <ostream>

#include "jit/workload.hpp"

namespace livetune::test {

inline Workload mm(int64_t m, int64_t n, int64_t k, bool trans_b = false) { return Workload::matmul(m, n, k, trans_b); }

// Leading dimensions larger than the rows need: kernels must read and write inside them only.
inline Workload padded(Workload w, int64_t da = 3, int64_t db = 5, int64_t dc = 7) {
  w.lda += da, w.ldb += db, w.ldc += dc;
  return w;
}

inline Workload epi(Workload w, bool bias, ActivationKind act, float beta = 0.0f) {
  w.bias = bias, w.act = act, w.beta = beta;
  return w;
}

// A labelled workload for parameterised tests; printed as its text.
struct Shape {
  const char* label;
  Workload w;
};
inline void PrintTo(const Shape& s, std::ostream* os) { *os << s.w.text(); }

}  // namespace livetune::test
