#include "sampler/validation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "jit/reference.hpp"
#include "sampler/full_reference.hpp"

namespace livetune {

ValidationData::ValidationData(const Workload& w, uint64_t seed)
    : w_(w),
      in_(w, seed),
      expected_(full_reference(w, in_.a.data(), in_.b.data(), in_.bias.data(), in_.c)),
      tolerance_(matmul_tolerance(w, 1.0)) {}

Floats ValidationData::output_of(const Kernel& k, int64_t m) const {
  Floats c = in_.c;
  run_gemm_serial(k, a(), b(), bias(), c.data(), m);
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

std::string ValidationData::check(const Kernel& k, double* run_seconds) const {
  const auto start = std::chrono::steady_clock::now();
  const Floats c = output_of(k);
  if (run_seconds) *run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (std::string why = check_output(c); !why.empty()) return why;
  for (int64_t m : check_rows(k))
    if (std::string why = compare(output_of(k, m), m); !why.empty())
      return "called with M = " + std::to_string(m) + ": " + why;
  return {};
}

double ValidationData::warm_run_seconds(const Kernel& k) const {
  Floats c = in_.c;
  run_gemm_serial(k, a(), b(), bias(), c.data());
  const auto start = std::chrono::steady_clock::now();
  run_gemm_serial(k, a(), b(), bias(), c.data());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string ValidationData::check_output(const Floats& c) const { return compare(c, w_.m); }

// Rows from m on are the ones a call of m rows must not touch (each row of C depends only on
// its row of A: the reference's first m rows are those of a call of m rows).
std::string ValidationData::compare(const Floats& c, int64_t m) const {
  for (int64_t r = 0; r < m; ++r) {
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
      if (c[size_t(r * w_.ldc + j)] != in_.c[size_t(r * w_.ldc + j)])
        return "wrote into C outside the call's rows and columns at row " + std::to_string(r) + ", column " +
               std::to_string(j);
  return {};
}

}  // namespace livetune
