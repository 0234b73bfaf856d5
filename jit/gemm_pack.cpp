// Packing copies a cache block of A or B into the order the micro-kernel reads it:
// A as panels of mr rows (a(i, p) at p·mr + i), B as panels of nr columns (b(p, j) at
// p·nr + j, zero-padded past the N edge so the micro-kernel loads whole vectors).
#include <llvm/IR/Intrinsics.h>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

llvm::Function* GemmEmitter::pack_a_function() {
  if (pack_a_) return pack_a_;
  // (src = A + ic·lda + pc, dst, mb, kb)
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, b_.getInt64Ty(), b_.getInt64Ty()}, false);
  pack_a_ = new_function("pack_a", type, true);
  auto saved = b_.saveIP();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", pack_a_));
  auto arg = pack_a_->arg_begin();
  llvm::Value *src = arg++, *dst = arg++, *mb = arg++, *kb = arg++;
  ir::emit_for(b_, i64(0), mb, c_.mr, [&](llvm::Value* ir_) {
    llvm::Value* rows = ir::smin(b_, i64(c_.mr), b_.CreateSub(mb, ir_));
    llvm::Value* panel = f32_ptr(dst, b_.CreateMul(ir_, kb));
    ir::emit_for(b_, i64(0), rows, 1, [&](llvm::Value* i) {
      llvm::Value* row = f32_ptr(src, b_.CreateMul(b_.CreateAdd(ir_, i), i64(w_.lda)));
      ir::emit_for(b_, i64(0), kb, 1, [&](llvm::Value* p) {
        llvm::Value* v = b_.CreateAlignedLoad(f32_, f32_ptr(row, p), llvm::Align(4));
        b_.CreateAlignedStore(v, f32_ptr(panel, b_.CreateAdd(b_.CreateMul(p, i64(c_.mr)), i)), llvm::Align(4));
      }, "pa.p");
    }, "pa.i");
  }, "pa.ir");
  b_.CreateRetVoid();
  b_.restoreIP(saved);
  return pack_a_;
}

llvm::Function* GemmEmitter::pack_b_function() {
  if (pack_b_) return pack_b_;
  // (src = B at (pc, jc), dst, kb, nb)
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, b_.getInt64Ty(), b_.getInt64Ty()}, false);
  pack_b_ = new_function("pack_b", type, true);
  auto saved = b_.saveIP();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", pack_b_));
  auto arg = pack_b_->arg_begin();
  llvm::Value *src = arg++, *dst = arg++, *kb = arg++, *nb = arg++;
  const llvm::Align vec_align(size_t(W_) * 4);
  llvm::Value* zero = llvm::ConstantAggregateZero::get(vec_);

  ir::emit_for(b_, i64(0), nb, c_.nr, [&](llvm::Value* jr) {
    llvm::Value* cols = b_.CreateSub(nb, jr);
    llvm::Value* panel = f32_ptr(dst, b_.CreateMul(jr, kb));
    ir::emit_for(b_, i64(0), kb, 1, [&](llvm::Value* p) {
      for (int v = 0; v < nv_; ++v) {
        llvm::Value* mask = lane_mask(b_.CreateSub(cols, i64(int64_t(v) * W_)));
        llvm::Value* x;
        if (!w_.trans_b) {
          llvm::Value* ptr = f32_ptr(src, b_.CreateAdd(b_.CreateMul(p, i64(w_.ldb)), b_.CreateAdd(jr, i64(int64_t(v) * W_))));
          x = b_.CreateMaskedLoad(vec_, ptr, llvm::Align(4), mask, zero);
        } else {
          // B is N×K: the W values of row p sit ldb apart; gather them.
          std::vector<llvm::Constant*> offs;
          for (int l = 0; l < W_; ++l) offs.push_back(b_.getInt64(int64_t(l) * w_.ldb));
          llvm::Value* base = f32_ptr(src, b_.CreateAdd(b_.CreateMul(b_.CreateAdd(jr, i64(int64_t(v) * W_)), i64(w_.ldb)), p));
          llvm::Value* ptrs = b_.CreateInBoundsGEP(f32_, base, llvm::ConstantVector::get(offs));
          x = b_.CreateMaskedGather(vec_, ptrs, llvm::Align(4), mask, zero);
        }
        b_.CreateAlignedStore(x, f32_ptr(panel, b_.CreateAdd(b_.CreateMul(p, i64(c_.nr)), i64(int64_t(v) * W_))), vec_align);
      }
    }, "pb.p");
  }, "pb.jr");
  b_.CreateRetVoid();
  b_.restoreIP(saved);
  return pack_b_;
}

}  // namespace livetune
