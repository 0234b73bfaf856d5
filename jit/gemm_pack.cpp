// Packing copies a cache block of A or B into the order the micro-kernel reads it:
// A as panels of mr rows (a(i, p) at p·mr + i), B as panels of nr columns (b(p, j) at
// p·nr + j, zero-padded past the N edge so the micro-kernel loads whole vectors).
#include <llvm/IR/Intrinsics.h>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

void GemmEmitter::emit_pack_a(const PackASpec& s, const std::string& name) {
  llvm::Function* f = begin_function(name, {ptr_, ptr_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *src = arg++, *dst = arg++, *mb = arg++, *kb = arg++;
  ir::emit_for(b_, i64(0), mb, s.mr, [&](llvm::Value* ir_) {
    // A short last panel starts higher up, at mb - mr, so that it holds mr real rows; the
    // edge tile reads the last of them.
    llvm::Value* top = ir::smin(b_, ir_, b_.CreateSub(mb, i64(s.mr)));
    llvm::Value* panel = f32_ptr(dst, b_.CreateMul(ir_, kb));
    ir::emit_for(b_, i64(0), i64(s.mr), 1, [&](llvm::Value* i) {
      llvm::Value* row = f32_ptr(src, b_.CreateMul(b_.CreateAdd(top, i), i64(s.lda)));
      ir::emit_for(b_, i64(0), kb, 1, [&](llvm::Value* p) {
        llvm::Value* v = b_.CreateAlignedLoad(f32_, f32_ptr(row, p), llvm::Align(4));
        b_.CreateAlignedStore(v, f32_ptr(panel, b_.CreateAdd(b_.CreateMul(p, i64(s.mr)), i)), llvm::Align(4));
      }, "pa.p");
    }, "pa.i");
  }, "pa.ir");
  b_.CreateRetVoid();
}

void GemmEmitter::emit_pack_b(const PackBSpec& s, const std::string& name) {
  llvm::Function* f = begin_function(name, {ptr_, ptr_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *src = arg++, *dst = arg++, *kb = arg++, *nb = arg++;
  const llvm::Align vec_align(size_t(W_) * 4);
  llvm::Value* zero = llvm::ConstantAggregateZero::get(vec_);
  const int nv = s.nr / W_;

  // Copies row p of panel jr; `masked` only for the panel at the N edge.
  auto copy_row = [&](llvm::Value* jr, llvm::Value* p, bool masked) {
    llvm::Value* cols = b_.CreateSub(nb, jr);
    llvm::Value* panel = f32_ptr(dst, b_.CreateMul(jr, kb));
    for (int v = 0; v < nv; ++v) {
      llvm::Value* mask = masked ? lane_mask(b_.CreateSub(cols, i64(int64_t(v) * W_))) : nullptr;
      llvm::Value* x;
      if (!s.trans_b) {
        llvm::Value* ptr = f32_ptr(src, b_.CreateAdd(b_.CreateMul(p, i64(s.ldb)), b_.CreateAdd(jr, i64(int64_t(v) * W_))));
        x = load_vector(ptr, llvm::Align(4), mask);
      } else {
        // B is N×K: the W values of row p sit ldb apart; gather them.
        std::vector<llvm::Constant*> offs;
        for (int l = 0; l < W_; ++l) offs.push_back(b_.getInt64(int64_t(l) * s.ldb));
        llvm::Value* base = f32_ptr(src, b_.CreateAdd(b_.CreateMul(b_.CreateAdd(jr, i64(int64_t(v) * W_)), i64(s.ldb)), p));
        llvm::Value* ptrs = b_.CreateInBoundsGEP(f32_, base, llvm::ConstantVector::get(offs));
        x = b_.CreateMaskedGather(vec_, ptrs, llvm::Align(4), masked ? mask : b_.getAllOnesMask(llvm::ElementCount::getFixed(unsigned(W_))), zero);
      }
      b_.CreateAlignedStore(x, f32_ptr(panel, b_.CreateAdd(b_.CreateMul(p, i64(s.nr)), i64(int64_t(v) * W_))), vec_align);
    }
  };
  llvm::Value* full = b_.CreateMul(b_.CreateSDiv(nb, i64(s.nr)), i64(s.nr));  // columns in whole panels
  // Read B in the order it lies in memory: row by row when rows are B's rows (a row of the
  // block is one run the hardware prefetcher follows; panel by panel, the block's rows were
  // read a few lines each), panel by panel when B is transposed (each gathered lane then
  // walks a row of its own).
  if (!s.trans_b) {
    ir::emit_for(b_, i64(0), kb, 1, [&](llvm::Value* p) {
      ir::emit_for(b_, i64(0), full, s.nr, [&](llvm::Value* jr) { copy_row(jr, p, false); }, "pb.jr");
    }, "pb.p");
  } else {
    ir::emit_for(b_, i64(0), full, s.nr, [&](llvm::Value* jr) {
      ir::emit_for(b_, i64(0), kb, 1, [&](llvm::Value* p) { copy_row(jr, p, false); }, "pb.p");
    }, "pb.jr");
  }
  ir::emit_if(b_, b_.CreateICmpSLT(full, nb), [&] {
    ir::emit_for(b_, i64(0), kb, 1, [&](llvm::Value* p) { copy_row(full, p, true); }, "pb.edge");
  });
  b_.CreateRetVoid();
}

}  // namespace livetune
