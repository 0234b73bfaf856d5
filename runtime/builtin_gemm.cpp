#include "runtime/builtin_gemm.hpp"

#include <algorithm>
#include <vector>

#include "jit/reference.hpp"
#include "runtime/isa_dispatch.hpp"

namespace livetune {
namespace {

// acc[0..n) += x · row[0..n)
[[gnu::always_inline]] inline void axpy_body(float* acc, float x, const float* row, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += x * row[j];
}

// Σ x[p]·y[p] with 16 partial sums, so it vectorises without reassociation flags.
[[gnu::always_inline]] inline float dot_body(const float* x, const float* y, int64_t n) {
  float part[16] = {};
  int64_t p = 0;
  for (; p + 16 <= n; p += 16)
    for (int l = 0; l < 16; ++l) part[l] += x[p + l] * y[p + l];
  float sum = 0;
  for (; p < n; ++p) sum += x[p] * y[p];
  for (float s : part) sum += s;
  return sum;
}

LIVETUNE_ISA_AVX512 void axpy_avx512(float* acc, float x, const float* row, int64_t n) { axpy_body(acc, x, row, n); }
LIVETUNE_ISA_AVX2 void axpy_avx2(float* acc, float x, const float* row, int64_t n) { axpy_body(acc, x, row, n); }
void axpy_generic(float* acc, float x, const float* row, int64_t n) { axpy_body(acc, x, row, n); }
LIVETUNE_ISA_AVX512 float dot_avx512(const float* x, const float* y, int64_t n) { return dot_body(x, y, n); }
LIVETUNE_ISA_AVX2 float dot_avx2(const float* x, const float* y, int64_t n) { return dot_body(x, y, n); }
float dot_generic(const float* x, const float* y, int64_t n) { return dot_body(x, y, n); }

const auto axpy = pick_for_cpu(&axpy_avx512, &axpy_avx2, &axpy_generic);
const auto dot = pick_for_cpu(&dot_avx512, &dot_avx2, &dot_generic);

}  // namespace

void builtin_matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c) {
  thread_local std::vector<float> acc;
  acc.resize(size_t(w.n));
  for (int64_t i = 0; i < w.m; ++i) {
    const float* arow = a + i * w.lda;
    if (w.trans_b) {
      for (int64_t j = 0; j < w.n; ++j) acc[size_t(j)] = dot(arow, b + j * w.ldb, w.k);
    } else {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t p = 0; p < w.k; ++p) axpy(acc.data(), arow[p], b + p * w.ldb, w.n);
    }
    float* crow = c + i * w.ldc;
    for (int64_t j = 0; j < w.n; ++j) {
      float x = acc[size_t(j)];
      if (w.bias) x += bias[j];
      if (w.beta != 0.0f) x += w.beta * crow[j];
      crow[j] = w.act == ActivationKind::none ? x : float(apply_activation(w.act, x));
    }
  }
}

}  // namespace livetune
