// Writing a tile: the first K block sets C (plus beta·C), later blocks add to it, and the last
// one applies bias and activation to the complete sum.
#include <llvm/IR/Intrinsics.h>

#include "jit/gemm_emitter.hpp"

namespace livetune {

void GemmEmitter::emit_store_tile(llvm::Value* c, llvm::Value* bias, llvm::Value* first, llvm::Value* last,
                                  int rows, int nv, int cols, std::vector<llvm::Value*>& acc) {
  const int tail_lanes = cols - (nv - 1) * W_;
  const llvm::Align align(4);
  auto c_ptr = [&](int r, int v) { return f32_ptr(c, int64_t(r) * w_.ldc + int64_t(v) * W_); };
  auto lanes = [&](int v) { return v == nv - 1 && tail_lanes < W_ ? lane_mask(tail_lanes) : lane_mask(W_); };
  llvm::Value* zero = llvm::ConstantAggregateZero::get(vec_);

  // One straight-line update, no branches: x = acc + s·C with s = beta on the first K block
  // and 1 after it. With beta = 0 the first block must not read C at all (it may hold NaN):
  // its load is masked off.
  llvm::Value* scale = b_.CreateVectorSplat(unsigned(W_), b_.CreateSelect(first, llvm::ConstantFP::get(f32_, w_.beta), llvm::ConstantFP::get(f32_, 1.0)));
  llvm::Value* read = w_.beta != 0.0f ? b_.getTrue() : b_.CreateNot(first);
  llvm::Value* read_all = b_.CreateVectorSplat(unsigned(W_), read);
  std::vector<llvm::Value*> x(acc.size());
  for (int r = 0; r < rows; ++r)
    for (int v = 0; v < nv; ++v) {
      llvm::Value* old = b_.CreateMaskedLoad(vec_, c_ptr(r, v), align, b_.CreateAnd(lanes(v), read_all), zero);
      x[size_t(r * nv + v)] = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {old, scale, acc[size_t(r * nv + v)]});
    }

  if (w_.bias || w_.act != ActivationKind::none) {
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    auto* before = b_.GetInsertBlock();
    auto* epi_bb = llvm::BasicBlock::Create(ctx_, "epilogue", f);
    auto* store_bb = llvm::BasicBlock::Create(ctx_, "store", f);
    b_.CreateCondBr(last, epi_bb, store_bb);
    b_.SetInsertPoint(epi_bb);
    std::vector<llvm::Value*> bias_v(static_cast<size_t>(nv));
    if (w_.bias)
      for (int v = 0; v < nv; ++v) bias_v[v] = b_.CreateMaskedLoad(vec_, f32_ptr(bias, int64_t(v) * W_), align, lanes(v), zero);
    std::vector<llvm::Value*> y(x.size());
    for (int r = 0; r < rows; ++r)
      for (int v = 0; v < nv; ++v) {
        llvm::Value* e = x[size_t(r * nv + v)];
        if (w_.bias) e = b_.CreateFAdd(e, bias_v[v]);
        y[size_t(r * nv + v)] = emit_activation(e);
      }
    auto* epi_end = b_.GetInsertBlock();
    b_.CreateBr(store_bb);
    b_.SetInsertPoint(store_bb);
    for (size_t i = 0; i < x.size(); ++i) {
      auto* phi = b_.CreatePHI(vec_, 2);
      phi->addIncoming(x[i], before);
      phi->addIncoming(y[i], epi_end);
      x[i] = phi;
    }
  }

  for (int r = 0; r < rows; ++r)
    for (int v = 0; v < nv; ++v) {
      llvm::Value* val = x[size_t(r * nv + v)];
      if (v == nv - 1 && tail_lanes < W_)
        b_.CreateMaskedStore(val, c_ptr(r, v), align, lane_mask(tail_lanes));
      else
        b_.CreateAlignedStore(val, c_ptr(r, v), align);
    }
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
