#pragma once
// Checking a compiled candidate before it may touch a caller's data: it runs on synthetic
// inputs of the same workload and every element of its result is compared with the reference.
#include <cstdint>
#include <string>
#include <vector>

#include "jit/floats.hpp"
#include "jit/kernel.hpp"
#include "jit/workload.hpp"
#include "sampler/synthetic_inputs.hpp"

namespace livetune {

class ValidationData {
 public:
  // Inputs from `seed` (synthetic_inputs.hpp), and the reference of all of C (full_reference.hpp).
  ValidationData(const Workload& w, uint64_t seed);

  const Workload& workload() const { return w_; }
  const float* a() const { return in_.a.data(); }
  const float* b() const { return in_.b.data(); }
  const float* bias() const { return in_.bias.data(); }
  // C before the call (read when beta != 0); outputs start as a copy of it.
  const Floats& c_init() const { return in_.c; }

  // Empty when the kernel's result matches; otherwise what went wrong, for the log. A kernel
  // of a bucket of M is also run with the fewest rows that exercise each of its edge tiles
  // (check_rows), and must leave the rows below those untouched. `run_seconds`, if given,
  // gets the time of the kernel's run with all of M, on this thread: its first run.
  std::string check(const Kernel& k, double* run_seconds = nullptr) const;
  // The time of a run with all of M on this thread after one untimed: the kernel's code and
  // workspace in place (a first run of fresh code, on a small workload, can take several
  // times as long).
  double warm_run_seconds(const Kernel& k) const;
  // The same for an output computed by anyone from these inputs and c_init().
  std::string check_output(const Floats& c) const;
  // What `k` writes into a copy of c_init() from these inputs, called with m rows (0: all).
  Floats output_of(const Kernel& k, int64_t m = 0) const;
  // The numbers of rows, besides the workload's M, that `check` calls a bucket's kernel with.
  std::vector<int64_t> check_rows(const Kernel& k) const;

 private:
  std::string compare(const Floats& c, int64_t m) const;

  Workload w_;
  SyntheticInputs in_;
  Floats expected_;
  double tolerance_ = 0;
};

}  // namespace livetune
