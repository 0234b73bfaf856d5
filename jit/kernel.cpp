#include "jit/kernel.hpp"

#include "jit/workspace.hpp"

namespace livetune {

void run_gemm_serial(const Kernel& k, const float* a, const float* b, const float* bias, float* c, int64_t m) {
  if (m == 0) m = k.workload.m;
  GemmArgs args{a, b, c, bias, thread_workspace(k.workspace_floats), 0, k.tiles_for(m), nullptr, m};
  k.run(args);
}

}  // namespace livetune
