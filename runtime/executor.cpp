#include "runtime/executor.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "jit/target.hpp"
#include "jit/workspace.hpp"

namespace livetune {
namespace {

// Below this many flops a call is over in a few microseconds: waking threads costs more.
constexpr double kMinFlopsPerThread = 4e6;

}  // namespace

Executor::Executor(int threads) : threads_(std::max(1, threads)), arena_(threads_) {}

int64_t Executor::parts_for(const Kernel& k, int64_t m, int64_t tiles) const {
  const double flops = 2.0 * double(m) * double(k.workload.n) * double(k.workload.k);
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
