#pragma once
// The portable built-in kernel: serves a workload's calls until its JIT kernel is ready, so
// that the first call never waits for a compiler. Plain C++, vectorised by the C++ compiler
// for the best ISA of the machine it runs on (function multi-versioning).
#include "jit/workload.hpp"

namespace livetune {

void builtin_matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c);

}  // namespace livetune
