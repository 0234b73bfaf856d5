#include "runtime/executor.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "runtime/workspace.hpp"

namespace livetune {
namespace {

// Below this many flops a call is over in a few microseconds: waking threads costs more.
constexpr double kMinFlopsPerThread = 4e6;

}  // namespace

Executor::Executor(int threads) : threads_(std::max(1, threads)), arena_(threads_) {}

void Executor::run(const Kernel& k, const float* a, const float* b, const float* bias, float* c,
                   const float* b_packed) {
  const int64_t parts = std::min<int64_t>({threads_, k.tiles, int64_t(k.workload.flops() / kMinFlopsPerThread) + 1});
  if (parts <= 1) {
    GemmArgs args{a, b, c, bias, thread_workspace(k.workspace_floats), 0, k.tiles, b_packed};
    k.run(args);
    return;
  }
  arena_.execute([&] {
    tbb::parallel_for(
        int64_t(0), parts,
        [&](int64_t part) {
          GemmArgs args{a, b, c, bias, thread_workspace(k.workspace_floats), k.tiles * part / parts,
                        k.tiles * (part + 1) / parts, b_packed};
          k.run(args);
        },
        tbb::static_partitioner());
  });
}

}  // namespace livetune
