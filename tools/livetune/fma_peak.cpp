#include "tools/livetune/fma_peak.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "jit/orc_engine.hpp"
#include "jit/target.hpp"

namespace livetune::cli {
namespace {

using FmaLoop = float (*)(int64_t iterations);

struct Probe {
  FmaLoop fn = nullptr;
  LinkedCode code;
};

// One loop-carried vector per accumulator, as many as leave registers for the constants:
// independent FMAs cover the FMA latency. More than the registers hold spill (24 on AVX2's
// 16 registers read half the peak).
int accumulators() { return std::min(24, Target::host().vector_registers() - 4); }

Probe compile_probe(int width) {
  llvm::LLVMContext ctx;
  auto m = std::make_unique<llvm::Module>("fma_peak", ctx);
  llvm::IRBuilder<> b(ctx);
  auto* vec = llvm::FixedVectorType::get(b.getFloatTy(), unsigned(width));
  auto* f = llvm::Function::Create(llvm::FunctionType::get(b.getFloatTy(), {b.getInt64Ty()}, false),
                                   llvm::Function::ExternalLinkage, "livetune_fma_peak", m.get());
  f->addFnAttr("prefer-vector-width", std::to_string(width * 32));
  f->addFnAttr("min-legal-vector-width", std::to_string(width * 32));
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", f));
  auto* pre = b.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(ctx, "head", f);
  auto* body = llvm::BasicBlock::Create(ctx, "body", f);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  auto* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), pre);
  std::vector<llvm::PHINode*> acc;
  for (int a = 0; a < accumulators(); ++a) {
    acc.push_back(b.CreatePHI(vec, 2));
    acc.back()->addIncoming(llvm::ConstantFP::get(vec, 0.001 * a), pre);
  }
  b.CreateCondBr(b.CreateICmpSLT(i, f->getArg(0)), body, exit);
  b.SetInsertPoint(body);
  llvm::Value* x = llvm::ConstantFP::get(vec, 0.999999);
  llvm::Value* y = llvm::ConstantFP::get(vec, 1e-7);
  for (auto* a : acc) a->addIncoming(b.CreateIntrinsic(llvm::Intrinsic::fma, {vec}, {a, x, y}), body);
  i->addIncoming(b.CreateAdd(i, b.getInt64(1)), body);
  b.CreateBr(head);
  b.SetInsertPoint(exit);
  llvm::Value* sum = acc[0];
  for (int a = 1; a < accumulators(); ++a) sum = b.CreateFAdd(sum, acc[size_t(a)]);
  b.CreateRet(b.CreateExtractElement(sum, uint64_t(0)));

  llvm::TargetMachine& tm = thread_target_machine();
  m->setDataLayout(tm.createDataLayout());
  Probe p;
  p.code = link_object(emit_object(*m, tm), {"livetune_fma_peak"});
  p.fn = reinterpret_cast<FmaLoop>(p.code.entries[0]);
  return p;
}

}  // namespace

double measure_fma_peak_gflops(int threads) {
  const int width = Target::host().vector_floats();
  const Probe probe = compile_probe(width);
  const int64_t iterations = 20'000'000;
  const double flops_per_thread = double(iterations) * accumulators() * width * 2;
  double best = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {  // best of three: the machine is shared
    std::vector<std::thread> pool;
    std::vector<float> sink(static_cast<size_t>(threads));
    auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[size_t(t)] = probe.fn(iterations); });
    for (auto& th : pool) th.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, flops_per_thread * threads / s / 1e9);
  }
  return best;
}

}  // namespace livetune::cli
