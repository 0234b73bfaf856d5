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
  auto masked = [&](int v) { return v == nv - 1 && tail_lanes < W_; };
  auto load = [&](llvm::Value* ptr, int v) -> llvm::Value* {
    if (masked(v))
      return b_.CreateMaskedLoad(vec_, ptr, align, lane_mask(tail_lanes), llvm::ConstantAggregateZero::get(vec_));
    return b_.CreateAlignedLoad(vec_, ptr, align);
  };

  llvm::Function* f = b_.GetInsertBlock()->getParent();
  auto* first_bb = llvm::BasicBlock::Create(ctx_, "first", f);
  auto* accum_bb = llvm::BasicBlock::Create(ctx_, "accumulate", f);
  auto* join_bb = llvm::BasicBlock::Create(ctx_, "join", f);
  b_.CreateCondBr(first, first_bb, accum_bb);

  std::vector<llvm::Value*> from_first, from_accum;
  b_.SetInsertPoint(first_bb);
  for (int r = 0; r < rows; ++r)
    for (int v = 0; v < nv; ++v) {
      llvm::Value* x = acc[size_t(r * nv + v)];
      if (w_.beta != 0.0f)
        x = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {splat(w_.beta), load(c_ptr(r, v), v), x});
      from_first.push_back(x);
    }
  b_.CreateBr(join_bb);
  b_.SetInsertPoint(accum_bb);
  for (int r = 0; r < rows; ++r)
    for (int v = 0; v < nv; ++v) from_accum.push_back(b_.CreateFAdd(acc[size_t(r * nv + v)], load(c_ptr(r, v), v)));
  b_.CreateBr(join_bb);

  b_.SetInsertPoint(join_bb);
  std::vector<llvm::Value*> x(from_first.size());
  for (size_t i = 0; i < x.size(); ++i) {
    auto* phi = b_.CreatePHI(vec_, 2);
    phi->addIncoming(from_first[i], first_bb);
    phi->addIncoming(from_accum[i], accum_bb);
    x[i] = phi;
  }

  if (w_.bias || w_.act != ActivationKind::none) {
    auto* epi_bb = llvm::BasicBlock::Create(ctx_, "epilogue", f);
    auto* store_bb = llvm::BasicBlock::Create(ctx_, "store", f);
    b_.CreateCondBr(last, epi_bb, store_bb);
    b_.SetInsertPoint(epi_bb);
    std::vector<llvm::Value*> bias_v(static_cast<size_t>(nv));
    if (w_.bias)
      for (int v = 0; v < nv; ++v) bias_v[v] = load(f32_ptr(bias, int64_t(v) * W_), v);
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
      phi->addIncoming(x[i], join_bb);
      phi->addIncoming(y[i], epi_end);
      x[i] = phi;
    }
  }

  for (int r = 0; r < rows; ++r)
    for (int v = 0; v < nv; ++v) {
      llvm::Value* val = x[size_t(r * nv + v)];
      if (masked(v))
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
