#include "jit/kernel.hpp"

#include <cstdlib>
#include <memory>

namespace livetune {

void run_gemm_serial(const Kernel& k, const float* a, const float* b, const float* bias, float* c, int64_t m) {
  const size_t bytes = (size_t(k.workspace_floats) * sizeof(float) + 63) / 64 * 64 + 64;
  std::unique_ptr<float, decltype(&std::free)> ws(static_cast<float*>(std::aligned_alloc(64, bytes)), &std::free);
  if (m == 0) m = k.workload.m;
  GemmArgs args{a, b, c, bias, ws.get(), 0, k.tiles_for(m), nullptr, m};
  k.run(args);
}

}  // namespace livetune
