#pragma once
// The machine's measured FMA peak: a JIT-compiled loop of independent vector FMAs (enough
// accumulators to cover the FMA latency), run on `threads` threads at once.
namespace livetune::cli {

double measure_fma_peak_gflops(int threads);

}  // namespace livetune::cli
