#pragma once
// The machine's measured read bandwidth for a working set of a given size, on `threads`
// threads: the roof of bandwidth-bound workloads (M = 1 or 8 with large N and K).
#include <cstdint>

namespace livetune::cli {

double measure_read_bandwidth_gbs(int64_t bytes, int threads);

// GFLOP/s a workload cannot exceed if its operands cross memory once at `gbs`.
double memory_roof_gflops(double flops, double bytes, double gbs);

}  // namespace livetune::cli
