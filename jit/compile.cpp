#include "jit/compile.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "jit/dump.hpp"
#include "jit/gemm_config.hpp"
#include "jit/gemm_emitter.hpp"
#include "jit/orc_engine.hpp"

namespace livetune {

void prepare_compile_thread() {
  // A throw-away kernel: the first compile in a process also pays for LLVM's lazy set-up.
  GemmConfig g;
  g.mr = 1, g.nr = Target::host().vector_floats(), g.mc = 16, g.nc = 64;
  compile_gemm(Workload::matmul(1, 16, 1), g.to_config(Target::host()));
}

KernelPtr compile_gemm(const Workload& w, const Config& c) {
  const auto start = std::chrono::steady_clock::now();
  const Target& target = Target::host();
  if (!gemm_space(w, target).valid(c))
    throw std::invalid_argument("config '" + c.text() + "' is not valid for '" + w.text() + "'");
  const GemmConfig g = GemmConfig::from(c);

  static std::atomic<uint64_t> counter{0};
  const std::string name = "livetune_gemm_" + std::to_string(counter.fetch_add(1));

  llvm::LLVMContext ctx;
  auto module = GemmEmitter(ctx, w, g, target, name).emit();
  std::string problems;
  llvm::raw_string_ostream problems_os(problems);
  if (llvm::verifyModule(*module, &problems_os))
    throw std::runtime_error("generated IR is invalid for '" + w.text() + "' / '" + c.text() + "': " + problems);

  llvm::TargetMachine& tm = thread_target_machine();
  optimize_module(*module, tm);
  const DumpRequest& dump = dump_request();
  const std::string header = w.text() + "\n" + c.text() + "\n";
  if (dump.ir) {
    std::string ir;
    llvm::raw_string_ostream os(ir);
    module->print(os, nullptr);
    dump_text(name, ".ll", header, ir);
  }
  if (dump.assembly) dump_text(name, ".s", header, emit_assembly(*module, tm));

  LinkedCode linked = link_object(emit_object(*module, tm), name);
  auto kernel = std::make_shared<Kernel>();
  kernel->workload = w;
  kernel->config = c;
  kernel->entry = reinterpret_cast<GemmEntry>(linked.entry);
  kernel->tiles = gemm_tiles(w, g);
  kernel->workspace_floats = gemm_workspace_floats(w, g);
  kernel->code = std::move(linked.code);
  kernel->compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return kernel;
}

}  // namespace livetune
