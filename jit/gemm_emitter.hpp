#pragma once
// The CPU GEMM generator: a few small emitters (packing, micro-kernel, epilogue, driver
// loops) that together build one LLVM module per (workload, config). Sizes are baked in as
// constants; the register tile is explicit <W x float> vectors and llvm.fma.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <map>
#include <string>
#include <memory>
#include <vector>

#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "jit/workload.hpp"

namespace livetune {

class GemmEmitter {
 public:
  GemmEmitter(llvm::LLVMContext& ctx, const Workload& w, const GemmConfig& c, const Target& t,
              std::string entry_name);
  // A module defining `void <entry_name>(const GemmArgs*)`.
  std::unique_ptr<llvm::Module> emit();

 private:
  // gemm_driver.cpp: the entry, the cache-block loop nest, the macro-kernel over tiles.
  void emit_entry();
  void emit_macro_kernel(llvm::Value* ic, llvm::Value* mb, llvm::Value* jc, llvm::Value* nb, llvm::Value* pc,
                         llvm::Value* kb);
  // gemm_pack.cpp
  llvm::Function* pack_a_function();
  llvm::Function* pack_b_function();
  // gemm_microkernel.cpp: a tile of `rows` × nr; columns past the tile's `cols` (a runtime
  // argument, < nr only at the N edge) are masked off, so one function serves both.
  llvm::Function* microkernel(int rows);
  void emit_k_loop(llvm::Value* a, llvm::Value* b, llvm::Value* kb, int rows, const std::vector<llvm::Value*>& masks,
                   std::vector<llvm::Value*>& acc);
  // gemm_epilogue.cpp: C update for one tile of accumulators; bias and activation out of line
  // (emitted once as a loop rather than unrolled into every tile: much faster compiles).
  void emit_store_tile(llvm::Value* c, llvm::Value* bias, llvm::Value* first, llvm::Value* last, llvm::Value* cols,
                       int rows, const std::vector<llvm::Value*>& masks, std::vector<llvm::Value*>& acc);
  llvm::Function* epilogue_function();
  llvm::Value* emit_activation(llvm::Value* x);
  llvm::Value* emit_tanh(llvm::Value* x);

  llvm::Function* new_function(const char* name, llvm::FunctionType* type, bool internal);
  llvm::Value* lane_mask(llvm::Value* valid_lanes);  // <W x i1>: the lanes below valid_lanes
  llvm::Value* f32_ptr(llvm::Value* base, llvm::Value* index);
  llvm::Value* f32_ptr(llvm::Value* base, int64_t index);
  llvm::Value* i64(int64_t v) { return b_.getInt64(v); }
  llvm::Value* splat(float v) { return llvm::ConstantFP::get(vec_, v); }

  llvm::LLVMContext& ctx_;
  std::string entry_name_;
  Workload w_;
  GemmConfig c_;
  int W_;   // floats per vector
  int nv_;  // vectors per tile row
  std::unique_ptr<llvm::Module> m_;
  llvm::IRBuilder<> b_;
  llvm::Type* f32_;
  llvm::Type* ptr_;
  llvm::FixedVectorType* vec_;
  struct Operands {
    llvm::Value *a, *b, *c, *bias, *a_pack, *b_pack;
  } ops_{};
  llvm::Function* pack_a_ = nullptr;
  llvm::Function* pack_b_ = nullptr;
  llvm::Function* epilogue_ = nullptr;
  std::map<int, llvm::Function*> microkernels_;
};

}  // namespace livetune
