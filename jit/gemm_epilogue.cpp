// Writing a tile: the first K block sets C (plus beta·C), later blocks add to it, and the last
// one applies bias and activation to the complete sum.
#include <llvm/IR/Intrinsics.h>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

void GemmEmitter::emit_store_tile(llvm::Value* c, llvm::Value* bias, llvm::Value* first, llvm::Value* last,
                                  llvm::Value* cols, int rows, const std::vector<llvm::Value*>& masks,
                                  std::vector<llvm::Value*>& acc) {
  const llvm::Align align(4);
  auto c_ptr = [&](int r, int v) { return f32_ptr(c, int64_t(r) * w_.ldc + int64_t(v) * W_); };

  // One straight-line update, no branches: C = acc + s·C with s = beta on the first K block
  // and 1 after it. With beta = 0 the first block must not read C at all (it may hold NaN):
  // its load is masked off.
  llvm::Value* scale = b_.CreateVectorSplat(
      unsigned(W_), b_.CreateSelect(first, llvm::ConstantFP::get(f32_, w_.beta), llvm::ConstantFP::get(f32_, 1.0)));
  llvm::Value* read = b_.CreateVectorSplat(unsigned(W_), w_.beta != 0.0f ? b_.getTrue() : b_.CreateNot(first));
  for (int r = 0; r < rows; ++r)
    for (int v = 0; v < nv_; ++v) {
      llvm::Value* old = b_.CreateMaskedLoad(vec_, c_ptr(r, v), align, b_.CreateAnd(masks[size_t(v)], read),
                                             llvm::ConstantAggregateZero::get(vec_));
      llvm::Value* x = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {old, scale, acc[size_t(r * nv_ + v)]});
      b_.CreateMaskedStore(x, c_ptr(r, v), align, masks[size_t(v)]);
    }
  if (w_.bias || w_.act != ActivationKind::none)
    ir::emit_if(b_, last, [&] { b_.CreateCall(epilogue_function(), {c, bias, i64(rows), cols}); }, "last");
}

llvm::Function* GemmEmitter::epilogue_function() {
  if (epilogue_) return epilogue_;
  // (c, bias, rows, cols): C = act(C + bias) over a tile, in place, while it is still in L1.
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, b_.getInt64Ty(), b_.getInt64Ty()}, false);
  epilogue_ = new_function("epilogue", type, true);
  auto saved = b_.saveIP();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", epilogue_));
  auto arg = epilogue_->arg_begin();
  llvm::Value *c = arg++, *bias = arg++, *rows = arg++, *cols = arg++;
  const llvm::Align align(4);
  llvm::Value* zero = llvm::ConstantAggregateZero::get(vec_);
  ir::emit_for(b_, i64(0), cols, W_, [&](llvm::Value* j) {
    llvm::Value* mask = lane_mask(b_.CreateSub(cols, j));
    llvm::Value* bias_v = w_.bias ? b_.CreateMaskedLoad(vec_, f32_ptr(bias, j), align, mask, zero) : nullptr;
    ir::emit_for(b_, i64(0), rows, 1, [&](llvm::Value* r) {
      llvm::Value* ptr = f32_ptr(c, b_.CreateAdd(b_.CreateMul(r, i64(w_.ldc)), j));
      llvm::Value* x = b_.CreateMaskedLoad(vec_, ptr, align, mask, zero);
      if (bias_v) x = b_.CreateFAdd(x, bias_v);
      b_.CreateMaskedStore(emit_activation(x), ptr, align, mask);
    }, "epi.r");
  }, "epi.j");
  b_.CreateRetVoid();
  b_.restoreIP(saved);
  return epilogue_;
}

llvm::Value* GemmEmitter::emit_activation(llvm::Value* x) {
  switch (w_.act) {
    case ActivationKind::none: return x;
    case ActivationKind::relu: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, splat(0.0f));
    case ActivationKind::gelu: {
      // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
      llvm::Value* x3 = b_.CreateFMul(b_.CreateFMul(x, x), x);
      llvm::Value* inner = b_.CreateFMul(splat(0.7978845608028654f),
                                         b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {splat(0.044715f), x3, x}));
      llvm::Value* t = emit_tanh(inner);
      return b_.CreateFMul(b_.CreateFMul(splat(0.5f), x), b_.CreateFAdd(splat(1.0f), t));
    }
  }
  return x;
}

llvm::Value* GemmEmitter::emit_tanh(llvm::Value* in) {
  // Rational minimax approximation of tanh on [-7.9, 7.9] (the one Eigen uses; a few ulp),
  // clamped outside, where tanh is ±1 in float.
  auto fma = [&](llvm::Value* a, llvm::Value* b, llvm::Value* c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {a, b, c});
  };
  llvm::Value* x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, in, splat(7.90531110763549805f));
  x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, splat(-7.90531110763549805f));
  llvm::Value* x2 = b_.CreateFMul(x, x);
  llvm::Value* p = fma(x2, splat(-2.76076847742355e-16f), splat(2.00018790482477e-13f));
  p = fma(x2, p, splat(-8.60467152213735e-11f));
  p = fma(x2, p, splat(5.12229709037114e-08f));
  p = fma(x2, p, splat(1.48572235717979e-05f));
  p = fma(x2, p, splat(6.37261928875436e-04f));
  p = fma(x2, p, splat(4.89352455891786e-03f));
  p = b_.CreateFMul(x, p);
  llvm::Value* q = fma(x2, splat(1.19825839466702e-06f), splat(1.18534705686654e-04f));
  q = fma(x2, q, splat(2.26843463243900e-03f));
  q = fma(x2, q, splat(4.89352518554385e-03f));
  return b_.CreateFDiv(p, q);
}

}  // namespace livetune
