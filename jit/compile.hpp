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
// pointer per tile. With random:150 (Zen 5, LIBXSMM in the same runs, alternated with the
// plan's replay): 9×33×1 from 0.59–0.74x to 0.85–1.03x, 17³ 0.83–0.89x to 0.91–1.0x, 46×46×3
// 0.86–0.94x to 1.0–1.04x, 40×33×8 0.94–0.99x to 1.01–1.08x. Past it the specialised copies of
// the tiles a whole call compiles (the plan's replay shares the tiles of other variants) took
// the compile median over 10 ms: 65×65×8 went from 6.3–7.9 ms to 11–14.
// So small a call never pays for a second thread (Executor): one threading tile.
constexpr int64_t kWholeCallFlops = int64_t(1) << 15;

KernelPtr compile_gemm(const Workload& w, const Config& c);

// Starts LLVM, the process-wide JIT and this thread's compiler now, by compiling a tiny
// kernel (tens of milliseconds), so that the first real kernel does not pay for them.
void prepare_compile_thread();

}  // namespace livetune
