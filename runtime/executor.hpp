#pragma once
// Runs a compiled kernel on a caller's data: on the calling thread, or with its tiles
// spread over the runtime's threads when the work is large enough to pay for them.
#include <tbb/task_arena.h>

#include "jit/kernel.hpp"

namespace livetune {

class Executor {
 public:
  explicit Executor(int threads);
  int threads() const { return threads_; }
  // m: the call's rows (k's workload may be a bucket of M); b_packed: all of B packed for k
  // (pack_whole_b), or null.
  void run(const Kernel& k, int64_t m, const float* a, const float* b, const float* bias, float* c,
           const float* b_packed = nullptr);

 private:
  int threads_;
  tbb::task_arena arena_;
};

}  // namespace livetune
