#pragma once
// One compiled variant: a raw entry point with the workload and config it was built for.
// Its code stays mapped for as long as the Kernel object lives.
#include <cstdint>
#include <memory>

#include "jit/space.hpp"
#include "jit/workload.hpp"

namespace livetune {

// The argument block of a generated GEMM. Sizes are baked into the code; the kernel computes
// tiles [begin, end) of the split dimension, so several threads may each take a range.
struct GemmArgs {
  const float* a;
  const float* b;
  float* c;
  const float* bias;
  float* workspace;  // gemm_workspace_floats() floats, 64-byte aligned
  int64_t begin;
  int64_t end;
};
using GemmEntry = void (*)(const GemmArgs*);

class CodeHandle;  // owned code in the JIT; freeing it unmaps the code

struct Kernel {
  Workload workload;
  Config config;
  GemmEntry entry = nullptr;
  int64_t tiles = 0;
  int64_t workspace_floats = 0;
  double compile_ms = 0;  // IR generation to callable
  std::shared_ptr<CodeHandle> code;
};

using KernelPtr = std::shared_ptr<const Kernel>;

// Runs the whole kernel on this thread with a scratch buffer of its own: for validation and
// measurement, not for the hot path (it allocates).
void run_gemm_serial(const Kernel& k, const float* a, const float* b, const float* bias, float* c);

}  // namespace livetune
