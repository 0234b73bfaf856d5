#pragma once
// The roof of bandwidth-bound workloads (M = 1 or 8 with large N and K): how fast `threads`
// threads read a working set of a given size. A probe is one more function to measure
// interleaved with the kernels, so that both see the same state of a shared machine.
#include <tbb/task_arena.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace livetune {

class ReadProbe {
 public:
  ReadProbe(int64_t bytes, int threads);
  void run();  // reads the whole working set once
  int64_t bytes() const { return per_thread_ * int64_t(buffers_.size()); }

 private:
  int64_t per_thread_;
  float (*read_all_)(const float*, int64_t) = nullptr;  // the faster read loop on this machine
  std::vector<std::unique_ptr<float, decltype(&std::free)>> buffers_;
  std::vector<float> sink_;
  tbb::task_arena arena_;
};

// GFLOP/s a workload cannot exceed if its operands cross memory once at `gbs`.
double memory_roof_gflops(double flops, double bytes, double gbs);

}  // namespace livetune
