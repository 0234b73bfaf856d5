#pragma once
// Checking a compiled candidate before it may touch a caller's data: it runs on synthetic
// inputs of the same workload and its result is compared with the reference.
#include <cstdint>
#include <string>
#include <vector>

#include "jit/floats.hpp"
#include "jit/kernel.hpp"
#include "jit/workload.hpp"

namespace livetune {

class ValidationData {
 public:
  // Inputs uniform in [-1, 1] from `seed`. The reference is computed for the rows most likely
  // to go wrong (the first and last register tiles of any blocking) plus a random sample,
  // all rows when the workload is small: a full reference of a large GEMM costs seconds.
  // `all_rows` checks every row, whatever the cost.
  ValidationData(const Workload& w, uint64_t seed, bool all_rows = false);

  const Workload& workload() const { return w_; }
  const float* a() const { return a_.data(); }
  const float* b() const { return b_.data(); }
  const float* bias() const { return bias_.data(); }
  // C before the call (read when beta != 0); outputs start as a copy of it.
  const Floats& c_init() const { return c_init_; }

  // Empty when the kernel's result matches; otherwise what went wrong, for the log. With
  // `trusted` — the output of a kernel validated before (output_of) — every element is also
  // compared with it: the reference covers only sampled rows of a large workload. A kernel of
  // a bucket of M is also run with the fewest rows that exercise each of its edge tiles
  // (check_rows), and must leave the rows below those untouched. `run_seconds`, if given, gets
  // the time of the kernel's run with all of M, on this thread.
  std::string check(const Kernel& k, const Floats* trusted = nullptr, double* run_seconds = nullptr) const;
  // The same for an output computed by anyone from these inputs and c_init().
  std::string check_output(const Floats& c, const Floats* trusted = nullptr) const;
  // What `k` writes into a copy of c_init() from these inputs, called with m rows (0: all).
  Floats output_of(const Kernel& k, int64_t m = 0) const;
  // The numbers of rows, besides the workload's M, that `check` calls a bucket's kernel with.
  std::vector<int64_t> check_rows(const Kernel& k) const;

 private:
  std::string compare(const Floats& c, int64_t m, const Floats* trusted) const;

  Workload w_;
  Floats a_, b_, bias_, c_init_, expected_;
  std::vector<int64_t> rows_;
  double tolerance_ = 0;
};

}  // namespace livetune
