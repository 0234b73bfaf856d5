#pragma once
// Compile one GEMM variant for the host: emit IR, compile it on this thread, link it.
// Safe to call from several threads at once. Throws std::runtime_error on an internal
// failure (the caller drops the variant) and std::invalid_argument for an invalid config.
#include <cstdint>

#include "jit/kernel.hpp"
#include "jit/target.hpp"

namespace livetune {

// At most this many multiply-adds (M·N·K), a kernel whose call is planned (Kernel::plan) is
// one function, its whole call (emit_whole_call), and nothing else: its calls' overheads show
// beside its FMAs — runtime sizes and masks, a K loop of a step or two, a call through a
// pointer per tile. With random:300 (Zen 5, against LIBXSMM in the same runs): 9×33×1 from
// 0.86x to 0.93–1.0x, 31×27×1 0.91x to ~1.07x, 17³ 0.83x to 1.02x, 46×46×3 0.84–0.94x to 0.94–1.08x.
// So small a call never pays for a second thread (Executor): one threading tile.
constexpr int64_t kWholeCallFlops = int64_t(1) << 17;

KernelPtr compile_gemm(const Workload& w, const Config& c);

// Starts LLVM, the process-wide JIT and this thread's compiler now, by compiling a tiny
// kernel (tens of milliseconds), so that the first real kernel does not pay for them.
void prepare_compile_thread();

}  // namespace livetune
