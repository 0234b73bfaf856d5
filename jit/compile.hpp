#pragma once
// Compile one GEMM variant for the host: emit IR, compile it on this thread, link it.
// Safe to call from several threads at once. Throws std::runtime_error on an internal
// failure (the caller drops the variant) and std::invalid_argument for an invalid config.
#include "jit/kernel.hpp"
#include "jit/target.hpp"

namespace livetune {

KernelPtr compile_gemm(const Workload& w, const Config& c);

// Starts LLVM, the process-wide JIT and this thread's compiler now, by compiling a tiny
// kernel (tens of milliseconds), so that the first real kernel does not pay for them.
void prepare_compile_thread();

}  // namespace livetune
