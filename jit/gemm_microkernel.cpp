// The register tile: rows × nv vectors of accumulators carried in phi nodes through the
// K loop (unrolled), one broadcast of A and nv vector loads of B per K step.
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <string>

#include "jit/gemm_emitter.hpp"

namespace livetune {

llvm::Function* GemmEmitter::microkernel(int rows) {
  if (auto it = microkernels_.find(rows); it != microkernels_.end()) return it->second;

  // (a, b, c, bias, kb, first, last, cols)
  auto* type = llvm::FunctionType::get(
      b_.getVoidTy(), {ptr_, ptr_, ptr_, ptr_, b_.getInt64Ty(), b_.getInt1Ty(), b_.getInt1Ty(), b_.getInt64Ty()},
      false);
  const std::string name = "tile_" + std::to_string(rows) + "x" + std::to_string(c_.nr);
  llvm::Function* f = new_function(name.c_str(), type, true);
  microkernels_[rows] = f;

  auto saved = b_.saveIP();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  auto arg = f->arg_begin();
  llvm::Value *a = arg++, *b = arg++, *c = arg++, *bias = arg++, *kb = arg++, *first = arg++, *last = arg++;
  llvm::Value* cols = arg++;

  std::vector<llvm::Value*> masks;  // valid lanes of each vector of the tile's width
  for (int v = 0; v < nv_; ++v) masks.push_back(lane_mask(b_.CreateSub(cols, i64(int64_t(v) * W_))));
  std::vector<llvm::Value*> acc(size_t(rows * nv_), llvm::ConstantAggregateZero::get(vec_));
  emit_k_loop(a, b, kb, rows, masks, acc);
  emit_store_tile(c, bias, first, last, cols, rows, masks, acc);
  b_.CreateRetVoid();
  b_.restoreIP(saved);
  return f;
}

void GemmEmitter::emit_k_loop(llvm::Value* a, llvm::Value* b, llvm::Value* kb, int rows,
                              const std::vector<llvm::Value*>& masks, std::vector<llvm::Value*>& acc) {
  // Packed A: a(i, p) at a[p·mr + i]; unpacked: a[i·lda + p]. Packed B: row p at b[p·nr],
  // zero-padded to full vectors; unpacked: b[p·ldb], masked (the masks are all-ones but at the
  // N edge, and cost nothing on AVX-512).
  const int64_t a_row = c_.pack_a ? 1 : w_.lda;
  const int64_t a_k = c_.pack_a ? c_.mr : 1;
  const int64_t b_k = c_.pack_b ? c_.nr : w_.ldb;
  const int nv = nv_;
  const llvm::Align b_align(c_.pack_b ? size_t(W_) * 4 : 4);

  auto step = [&](llvm::Value* p, std::vector<llvm::Value*>& cur) {
    llvm::Value* brow = f32_ptr(b, b_.CreateMul(p, i64(b_k)));
    if (c_.prefetch > 0) {
      llvm::Value* ahead = f32_ptr(b, b_.CreateMul(b_.CreateAdd(p, i64(c_.prefetch)), i64(b_k)));
      for (int v = 0; v < nv; v += std::max(1, 16 / W_))
        b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr_},
                           {f32_ptr(ahead, int64_t(v) * W_), b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
    }
    std::vector<llvm::Value*> bv(static_cast<size_t>(nv));
    for (int v = 0; v < nv; ++v) {
      llvm::Value* ptr = f32_ptr(brow, int64_t(v) * W_);
      if (!c_.pack_b)
        bv[v] = b_.CreateMaskedLoad(vec_, ptr, b_align, masks[size_t(v)], llvm::ConstantAggregateZero::get(vec_));
      else
        bv[v] = b_.CreateAlignedLoad(vec_, ptr, b_align);
    }
    llvm::Value* acol = f32_ptr(a, b_.CreateMul(p, i64(a_k)));
    for (int r = 0; r < rows; ++r) {
      llvm::Value* av = b_.CreateVectorSplat(unsigned(W_), b_.CreateAlignedLoad(f32_, f32_ptr(acol, r * a_row), llvm::Align(4)));
      for (int v = 0; v < nv; ++v) {
        auto& x = cur[size_t(r * nv + v)];
        x = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {av, bv[v], x});
      }
    }
  };

  // Emits a loop over p in [start, bound) stepping `unroll`, with the accumulators as phis.
  auto loop = [&](llvm::Value* start, llvm::Value* bound, int unroll, const char* name) -> llvm::Value* {
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(ctx_, std::string(name) + ".head", f);
    auto* body = llvm::BasicBlock::Create(ctx_, std::string(name) + ".body", f);
    auto* exit = llvm::BasicBlock::Create(ctx_, std::string(name) + ".exit", f);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* p = b_.CreatePHI(b_.getInt64Ty(), 2, "p");
    p->addIncoming(start, pre);
    std::vector<llvm::PHINode*> phis;
    for (auto& x : acc) {
      phis.push_back(b_.CreatePHI(vec_, 2));
      phis.back()->addIncoming(x, pre);
    }
    // p + unroll <= bound
    b_.CreateCondBr(b_.CreateICmpSLE(b_.CreateAdd(p, i64(unroll)), bound), body, exit);
    b_.SetInsertPoint(body);
    std::vector<llvm::Value*> cur(phis.begin(), phis.end());
    for (int u = 0; u < unroll; ++u) step(b_.CreateAdd(p, i64(u)), cur);
    p->addIncoming(b_.CreateAdd(p, i64(unroll)), b_.GetInsertBlock());
    for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(cur[i], b_.GetInsertBlock());
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
    acc.assign(phis.begin(), phis.end());
    return p;
  };

  llvm::Value* p = loop(i64(0), kb, c_.unroll, "kmain");
  // K blocks are kc long, but the last (K mod kc); a tail loop only if one is not a multiple
  // of the unroll: less code, faster compiles.
  const int64_t full = std::min<int64_t>(c_.kc, w_.k), last = w_.k % c_.kc;
  if (full % c_.unroll != 0 || last % c_.unroll != 0) loop(p, kb, 1, "ktail");
}

}  // namespace livetune
