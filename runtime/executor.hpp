#pragma once
// Runs a compiled kernel on a caller's data: on the calling thread, or with its tiles
// spread over the runtime's threads when the work is large enough to pay for them.
#include <tbb/task_arena.h>

#include "jit/kernel.hpp"
#include "jit/workspace.hpp"

namespace livetune {

class Executor {
 public:
  explicit Executor(int threads);
  int threads() const { return threads_; }
  // m: the call's rows (k's workload may be a bucket of M); b_packed: all of B packed for k
  // (pack_whole_b), or null.
  // Inline: on one thread, the whole cost of a call beyond its kernel.
  void run(const Kernel& k, int64_t m, const float* a, const float* b, const float* bias, float* c,
           const float* b_packed = nullptr) {
    // A small kernel of a fixed M is one function of the operands (Kernel::whole_call).
    if (k.whole_call) return k.whole_call(a, b, c, bias);
    const int64_t tiles = k.tiles_for(m);
    const int64_t parts = threads_ == 1 ? 1 : parts_for(k, m, tiles);
    if (parts <= 1) {
      k.run(GemmArgs{a, b, c, bias, thread_workspace(k.workspace_floats), 0, tiles, b_packed, m});
      return;
    }
    run_parallel(k, m, a, b, bias, c, b_packed, tiles, parts);
  }

 private:
  // Threads worth waking for a call of m rows: no more than its tiles.
  int64_t parts_for(const Kernel& k, int64_t m, int64_t tiles) const;
  void run_parallel(const Kernel& k, int64_t m, const float* a, const float* b, const float* bias, float* c,
                    const float* b_packed, int64_t tiles, int64_t parts);

  int threads_;
  tbb::task_arena arena_;
};

}  // namespace livetune
