#pragma once
// Shared by the tests: seeded inputs, the expected result from the reference, and an element by
// element comparison that names the workload (and config) so a failure can be replayed with
// `livetune check matmul ... --config '<text>'`.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "jit/gemm_config.hpp"
#include "jit/reference.hpp"
#include "jit/space.hpp"
#include "jit/target.hpp"
#include "jit/workload.hpp"

namespace livetune::test {

// Written into the padding columns of C (j in [n, ldc)): a kernel must never touch them.
inline constexpr float kPadSentinel = 12345.0f;

// The widest register tile of `rows` rows on this host, in vectors (at most 4, the widest
// nr): 4 for 6 rows on AVX-512, 2 on AVX2's 16 registers.
inline int widest_vectors(int rows) {
  int nv = 4;
  while (nv > 1 && !tile_fits_registers(rows, nv, Target::host().vector_registers())) --nv;
  return nv;
}

// GemmConfig's defaults with the default rule's tile for this host (6 rows, widest_vectors).
inline GemmConfig host_gemm_config() {
  GemmConfig g;
  g.nr = widest_vectors(g.mr) * Target::host().vector_floats();
  return g;
}

inline std::vector<float> random_floats(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

// The CLI line that replays one config of one workload.
inline std::string replay_command(const Workload& w, const Config* c = nullptr) {
  std::ostringstream s;
  s << "livetune check matmul --m " << (w.min_m ? std::to_string(w.min_m) + ".." : "") << w.m << " --n " << w.n
    << " --k " << w.k;
  if (w.trans_b) s << " --trans-b";
  if (w.bias) s << " --bias";
  if (w.act != ActivationKind::none) s << " --act " << activation_name(w.act);
  const Workload dense = Workload::matmul(w.m, w.n, w.k, w.trans_b);
  if (w.lda != dense.lda) s << " --lda " << w.lda;
  if (w.ldb != dense.ldb) s << " --ldb " << w.ldb;
  if (w.ldc != dense.ldc) s << " --ldc " << w.ldc;
  if (w.beta != 0.0f) s << " --beta " << w.beta;
  if (c) s << " --config '" << c->text() << "'";
  return s.str();
}

inline std::string describe(const Workload& w, const Config* c = nullptr) {
  std::string s = "workload '" + w.text() + "'";
  if (c) s += " config '" + c->text() + "'";
  return s + "\n  replay: " + replay_command(w, c);
}

// Inputs of one workload, uniform in [-1, 1], and the reference result. The initial C holds the
// pad sentinel in its padding columns and, when beta = 0, NaN in the matrix itself: C must not
// be read then (BLAS convention; the reference does not read it either).
struct Problem {
  Workload w;
  std::vector<float> a, b, bias, c0, want;

  Problem(const Workload& wl, uint64_t seed) : w(wl) {
    a = random_floats(size_t(w.m * w.lda), seed * 4 + 1);
    b = random_floats(size_t(w.b_rows() * w.ldb), seed * 4 + 2);
    bias = random_floats(size_t(std::max<int64_t>(w.n, 1)), seed * 4 + 3);
    c0 = w.beta != 0.0f ? random_floats(size_t(w.m * w.ldc), seed * 4 + 4)
                        : std::vector<float>(size_t(w.m * w.ldc), std::numeric_limits<float>::quiet_NaN());
    for (int64_t i = 0; i < w.m; ++i)
      for (int64_t j = w.n; j < w.ldc; ++j) c0[size_t(i * w.ldc + j)] = kPadSentinel;
    want = c0;
    reference_matmul(w, a.data(), b.data(), bias.data(), want.data());
  }

  const float* bias_ptr() const { return w.bias ? bias.data() : nullptr; }
};

// Empty when `got` matches `want` within `tol` everywhere and the padding of C still holds the
// sentinel; otherwise the first few differences and their count.
inline std::string compare_c(const Workload& w, const std::vector<float>& got, const std::vector<float>& want,
                             double tol) {
  std::ostringstream s;
  int64_t bad = 0;
  for (int64_t i = 0; i < w.m; ++i) {
    for (int64_t j = 0; j < w.ldc; ++j) {
      const size_t at = size_t(i * w.ldc + j);
      if (j >= w.n) {
        if (got[at] != kPadSentinel && ++bad <= 5) s << "  padding C[" << i << "," << j << "] overwritten: " << got[at] << "\n";
      } else if (!(std::abs(double(got[at]) - double(want[at])) <= tol) && ++bad <= 5) {
        s << "  C[" << i << "," << j << "] = " << got[at] << ", want " << want[at] << " (tolerance " << tol << ")\n";
      }
    }
  }
  if (bad == 0) return {};
  return std::to_string(bad) + " bad elements of C:\n" + s.str();
}

// 64-byte aligned scratch of `floats` floats (at least one cache line).
struct AlignedFloats {
  explicit AlignedFloats(int64_t floats)
      : ptr(static_cast<float*>(std::aligned_alloc(64, (size_t(std::max<int64_t>(floats, 1)) * 4 + 63) / 64 * 64)),
            &std::free) {}
  float* get() const { return ptr.get(); }
  std::unique_ptr<float, decltype(&std::free)> ptr;
};

}  // namespace livetune::test
