#include "runtime/executor.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "jit/target.hpp"
#include "jit/workspace.hpp"

namespace livetune {
namespace {

// A part of a call under this many flops (about 10 microseconds) gains less from a second
// thread than handing it over costs. Zen 4, 2 threads over 1, kept busy back to back: 48×48×256
// (1.2 MFLOP) 1.6x, 100³ and 96³ 1.6–1.7x, 2×768×768 2.0x; at 0.5 MFLOP mixed (64³ 0.93x,
// 32×64×128 0.9–1.3x), at 0.26 (8×128×128) 0.5–0.8x.
constexpr double kMinFlopsPerThread = 1e6;

}  // namespace

Executor::Executor(int threads) : threads_(std::max(1, threads)), arena_(threads_) {}

int64_t Executor::parts_for(const Kernel& k, int64_t m, int64_t tiles) const {
  // Under 4 rows of A a call is bound by reading B, each float of it as slow as a few FMAs:
  // it counts as 4 rows (1×512×512, 0.5 MFLOP, 1.8x on 2 threads).
  const double rows = std::max<double>(double(m), 4);
  const double flops = 2.0 * rows * double(k.workload.n) * double(k.workload.k);
  return std::min<int64_t>({threads_, tiles, int64_t(flops * (1 / kMinFlopsPerThread)) + 1});
}

void Executor::run_parallel(const Kernel& k, int64_t m, const float* a, const float* b, const float* bias, float* c,
                            const float* b_packed, int64_t tiles, int64_t parts) {
  arena_.execute([&] {
    // Threads that split the rows each need all of B: packing it block by block, each would
    // pack all of it. Once B is larger than a core's L2 (where a block packed by the thread
    // that uses it would still be), pack it once, together, and share it.
    if (k.takes_packed_b() && !b_packed && k.gemm.split == Split::m &&
        packed_b_floats(k.workload, k.gemm) * int64_t(sizeof(float)) > Target::host().l2_bytes) {
      float* shared = call_buffer(packed_b_floats(k.workload, k.gemm));
      tbb::parallel_for(
          int64_t(0), parts, [&](int64_t part) { pack_whole_b(k, b, shared, part, parts); },
          tbb::static_partitioner());
      b_packed = shared;
    }
    tbb::parallel_for(
        int64_t(0), parts,
        [&](int64_t part) {
          GemmArgs args{a, b, c, bias, thread_workspace(k.workspace_floats), tiles * part / parts,
                        tiles * (part + 1) / parts, b_packed, m};
          k.run(args);
        },
        tbb::static_partitioner());
  });
}

}  // namespace livetune
