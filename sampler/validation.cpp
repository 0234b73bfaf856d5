#include "sampler/validation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

#include "jit/reference.hpp"

namespace livetune {

ValidationData::ValidationData(const Workload& w, uint64_t seed, bool all_rows) : w_(w) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](Floats& v, size_t n) {
    v.resize(n);
    for (float& x : v) x = dist(rng);
  };
  fill(a_, size_t(w.m * w.lda));
  fill(b_, size_t(w.b_rows() * w.ldb));
  fill(bias_, size_t(w.n));
  fill(c_init_, size_t(w.m * w.ldc));

  std::set<int64_t> rows;
  if (all_rows || w.flops() <= 64e6) {
    for (int64_t i = 0; i < w.m; ++i) rows.insert(i);
  } else {
    for (int64_t i = 0; i < std::min<int64_t>(w.m, 32); ++i) rows.insert(i), rows.insert(w.m - 1 - i);
    std::uniform_int_distribution<int64_t> pick(0, w.m - 1);
    for (int i = 0; i < 32; ++i) rows.insert(pick(rng));
  }
  // A bucket is also checked with the fewest rows that reach each edge tile (check_rows):
  // between its least M and 15 rows more, and their edge tiles end up to 15 rows above.
  if (w.min_m > 0)
    for (int64_t i = std::max<int64_t>(0, w.min_m - 16); i < std::min(w.m, w.min_m + 16); ++i) rows.insert(i);
  rows_.assign(rows.begin(), rows.end());
  expected_ = c_init_;
  for (int64_t r : rows_) reference_matmul(w, a_.data(), b_.data(), bias_.data(), expected_.data(), r, r + 1);
  tolerance_ = matmul_tolerance(w, 1.0);
}

Floats ValidationData::output_of(const Kernel& k, int64_t m) const {
  Floats c = c_init_;
  run_gemm_serial(k, a_.data(), b_.data(), bias_.data(), c.data(), m);
  return c;
}

std::vector<int64_t> ValidationData::check_rows(const Kernel& k) const {
  if (w_.min_m == 0) return {};
  // Remainders M mod mr that call each edge tile, and the largest, which calls them together.
  const int mr = k.gemm.mr;
  std::vector<int64_t> out;
  for (int64_t m = w_.min_m; m < std::min(w_.m, w_.min_m + mr); ++m) {
    const int r = int(m % mr);
    if (m == w_.min_m || r == mr - 1 || k.edge_tiles[size_t(r)]) out.push_back(m);
  }
  return out;
}

std::string ValidationData::check(const Kernel& k, const Floats* trusted, double* run_seconds) const {
  const auto start = std::chrono::steady_clock::now();
  const Floats c = output_of(k);
  if (run_seconds) *run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (std::string why = check_output(c, trusted); !why.empty()) return why;
  for (int64_t m : check_rows(k))
    if (std::string why = compare(output_of(k, m), m, nullptr); !why.empty())
      return "called with M = " + std::to_string(m) + ": " + why;
  return {};
}

std::string ValidationData::check_output(const Floats& c, const Floats* trusted) const {
  return compare(c, w_.m, trusted);
}

std::string ValidationData::compare(const Floats& c, int64_t m, const Floats* trusted) const {
  if (trusted) {
    // Both outputs round: twice the tolerance against the reference.
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < w_.n; ++j) {
        const size_t at = size_t(r * w_.ldc + j);
        if (!(std::abs(double(c[at]) - double((*trusted)[at])) <= 2 * tolerance_)) {
          std::ostringstream why;
          why << "C[" << r << "][" << j << "] = " << c[at] << ", validated kernel " << (*trusted)[at]
              << " (tolerance " << 2 * tolerance_ << ")";
          return why.str();
        }
      }
  }
  for (int64_t r : rows_) {
    if (r >= m) break;
    for (int64_t j = 0; j < w_.n; ++j) {
      const size_t at = size_t(r * w_.ldc + j);
      const double got = c[at], want = expected_[at];
      if (!(std::abs(got - want) <= tolerance_)) {
        std::ostringstream why;
        why << "C[" << r << "][" << j << "] = " << got << ", reference " << want << " (tolerance " << tolerance_ << ")";
        return why.str();
      }
    }
  }
  // Padding between rows, and rows past the call's, belong to the caller: they must come back
  // untouched.
  for (int64_t r = 0; r < w_.m; ++r)
    for (int64_t j = r < m ? w_.n : 0; j < w_.ldc; ++j)
      if (c[size_t(r * w_.ldc + j)] != c_init_[size_t(r * w_.ldc + j)])
        return "wrote into C outside the call's rows and columns at row " + std::to_string(r) + ", column " +
               std::to_string(j);
  return {};
}

}  // namespace livetune
