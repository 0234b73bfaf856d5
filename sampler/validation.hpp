#pragma once
// Checking a compiled candidate before it may touch a caller's data: it runs on synthetic
// inputs of the same workload and its result is compared with the reference.
#include <cstdint>
#include <string>
#include <vector>

#include "jit/kernel.hpp"
#include "jit/workload.hpp"

namespace livetune {

class ValidationData {
 public:
  // Inputs uniform in [-1, 1] from `seed`. The reference is computed for the rows most likely
  // to go wrong (the first and last register tiles of any blocking) plus a random sample,
  // all rows when the workload is small: a full reference of a large GEMM costs seconds.
  ValidationData(const Workload& w, uint64_t seed);

  const Workload& workload() const { return w_; }
  // Empty when the kernel's result matches; otherwise what went wrong, for the log.
  std::string check(const Kernel& k) const;

 private:
  Workload w_;
  std::vector<float> a_, b_, bias_, c_init_, expected_;
  std::vector<int64_t> rows_;
  double tolerance_ = 0;
};

}  // namespace livetune
