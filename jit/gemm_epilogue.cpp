// Writing a tile: the first K block sets C (plus beta·C), later blocks add to it. Bias and
// activation are a piece of their own, run by the driver on the finished tile while it is
// still in L1 (one loop rather than unrolled into every tile: much faster compiles).
#include <llvm/IR/Intrinsics.h>

#include "jit/edge_store.hpp"
#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

void GemmEmitter::emit_store_tile(const TileSpec& s, llvm::Value* c, llvm::Value* first,
                                  const std::vector<llvm::Value*>& masks, const std::vector<llvm::Value*>& acc) {
  const llvm::Align align(4);
  const int nv = s.nr / W_;

  // One straight-line update, no branches (a second path doubled the tile's compile time):
  // C = acc + f·C with f = beta on the first K block and 1 after it. With beta = 0 the first
  // block reads a row of zeros instead of C (which may hold NaN), chosen per row by the
  // pointer rather than per vector by a mask (a tile's worth of mask arithmetic cost ~4% on
  // a 64³ GEMM). Masks only cut the N edge.
  llvm::Type* row_type = llvm::ArrayType::get(f32_, uint64_t(s.nr));
  // K in one block with beta = 0: C is only written (half the tile's update on a 64³ GEMM).
  const bool write_only = s.one_k_block && s.beta == 0.0f;
  llvm::Value* zeros = nullptr;
  if (s.beta == 0.0f && !write_only) {
    auto* g = new llvm::GlobalVariable(*m_, row_type, true, llvm::GlobalValue::PrivateLinkage,
                                       llvm::ConstantAggregateZero::get(row_type), "zeros");
    g->setAlignment(llvm::Align(64));
    zeros = g;
  }
  llvm::Value* scale =
      s.beta == 0.0f ? nullptr
                     : b_.CreateVectorSplat(unsigned(W_), b_.CreateSelect(first, llvm::ConstantFP::get(f32_, s.beta),
                                                                          llvm::ConstantFP::get(f32_, 1.0)));
  for (int r = 0; r < s.rows; ++r) {
    llvm::Value* dst = f32_ptr(c, int64_t(r) * s.ldc);
    llvm::Value* src = zeros ? b_.CreateSelect(first, zeros, dst) : dst;
    for (int v = 0; v < nv; ++v) {
      llvm::Value* x = acc[size_t(r * nv + v)];
      llvm::Value* mask = masks[size_t(v)];  // null: the whole vector
      if (!write_only) {
        llvm::Value* old = load_vector(f32_ptr(src, int64_t(v) * W_), align, mask);
        // With beta = 0, f is 0 exactly where C was not read: an add, which leaves the FMA
        // pipes to the next tile.
        x = zeros ? b_.CreateFAdd(old, x) : b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {old, scale, x});
      }
      store_vector(x, f32_ptr(dst, int64_t(v) * W_), align, mask);
    }
  }
}

void GemmEmitter::emit_store_edge(const TileSpec& s, llvm::Value* c, llvm::Value* first, llvm::Value* skip_cols,
                                  llvm::Value* cols, const std::vector<llvm::Value*>& acc) {
  const int nv = s.nr / W_;
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> at_entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::AllocaInst* tile = at_entry.CreateAlloca(f32_, i64(int64_t(s.rows) * s.nr), "edge_tile");
  const llvm::Align vec_align(size_t(W_) * 4);
  tile->setAlignment(vec_align);
  for (int r = 0; r < s.rows; ++r)
    for (int v = 0; v < nv; ++v)
      b_.CreateAlignedStore(acc[size_t(r * nv + v)], f32_ptr(tile, int64_t(r) * s.nr + int64_t(v) * W_), vec_align);
  // What the straight-line update does to the old C (emit_store_tile): nothing read when only
  // written or on the first K block with beta = 0; added with beta = 0; else f·C fused in.
  const bool write_only = s.one_k_block && s.beta == 0.0f;
  llvm::Value* read_c = write_only ? b_.getInt32(0)
                        : s.beta == 0.0f ? b_.CreateZExt(b_.CreateNot(first), b_.getInt32Ty())
                                         : b_.getInt32(1);
  llvm::Value* factor = s.beta == 0.0f ? llvm::ConstantFP::get(f32_, 1.0)
                                       : b_.CreateSelect(first, llvm::ConstantFP::get(f32_, s.beta),
                                                         llvm::ConstantFP::get(f32_, 1.0));
  llvm::Value* lo = s.pack_b ? i64(0) : b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, skip_cols, i64(0));
  llvm::Value* hi = ir::smin(b_, cols, i64(s.nr));
  llvm::Type* i32 = b_.getInt32Ty();
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, i64_, ptr_, i64_, i64_, i64_, i64_, f32_, i32, i32}, false);
  // Called at its address: the code lives in this process only, beside this function.
  llvm::Value* callee = llvm::ConstantExpr::getIntToPtr(
      b_.getInt64(uint64_t(reinterpret_cast<uintptr_t>(&livetune_store_edge))), ptr_);
  b_.CreateCall(type, callee,
                {c, i64(s.ldc), tile, i64(s.nr), i64(s.rows), lo, hi, factor, read_c,
                 b_.getInt32(s.beta == 0.0f ? 0 : 1)});
}

void GemmEmitter::emit_epilogue(const EpilogueSpec& s, const std::string& name) {
  use_width(widest_);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *c = arg++, *bias = arg++, *rows = arg++, *cols = arg++;
  emit_epilogue_body(s, c, bias, rows, cols);
  b_.CreateRetVoid();
}

void GemmEmitter::emit_epilogue_body(const EpilogueSpec& s, llvm::Value* c, llvm::Value* bias, llvm::Value* rows,
                                     llvm::Value* cols) {
  const llvm::Align align(4);
  // Whole vectors, then the last few columns masked (masks cost nothing on AVX-512, but AVX2's
  // masked loads and stores are microcoded).
  // Columns j.. of every row, from C's row 0 at `c_j` and the bias at `bias_j`.
  auto columns = [&](llvm::Value* j, llvm::Value* c_j, llvm::Value* bias_j, bool masked) {
    llvm::Value* mask = masked ? lane_mask(b_.CreateSub(cols, j)) : nullptr;
    llvm::Value* bias_v = s.bias ? load_vector(bias_j, align, mask) : nullptr;
    ir::emit_for(b_, i64(0), rows, 1, {{c_j, i64(s.ldc)}}, [&](llvm::Value*, const auto& row) {
      llvm::Value* x = load_vector(row[0], align, mask);
      if (bias_v) x = b_.CreateFAdd(x, bias_v);
      store_vector(emit_activation(s.act, x), row[0], align, mask);
    }, "epi.r");
  };
  llvm::Value* whole = b_.CreateMul(b_.CreateSDiv(cols, i64(W_)), i64(W_));
  std::vector<ir::Walk> walks{{c, i64(W_)}};
  if (s.bias) walks.push_back({bias, i64(W_)});
  ir::emit_for(b_, i64(0), whole, W_, walks, [&](llvm::Value* j, const auto& at) {
    columns(j, at[0], s.bias ? at[1] : nullptr, false);
  }, "epi.j");
  ir::emit_if(b_, b_.CreateICmpSLT(whole, cols), [&] {
    columns(whole, f32_ptr(c, whole), s.bias ? f32_ptr(bias, whole) : nullptr, true);
  });
}

llvm::Value* GemmEmitter::emit_activation(ActivationKind act, llvm::Value* x) {
  switch (act) {
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
