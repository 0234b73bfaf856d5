// Packing copies a cache block of A or B into the order the micro-kernel reads it:
// A as panels of mr rows (a(i, p) at p·mr + i), B as panels of nr columns (b(p, j) at
// p·nr + j, zero-padded past the N edge so the micro-kernel loads whole vectors).
#include <llvm/IR/Intrinsics.h>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

void GemmEmitter::emit_pack_a(const PackASpec& s, const std::string& name) {
  use_width(widest_);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *src = arg++, *dst = arg++, *mb = arg++, *kb = arg++;
  // Panel ir/mr starts at dst + ir·kb; its row i reads A's row top + i, element p going to
  // panel[p·mr + i].
  ir::emit_for(b_, i64(0), mb, s.mr, {{dst, b_.CreateMul(kb, i64(s.mr))}}, [&](llvm::Value* ir_, const auto& panel) {
    // A short last panel starts higher up, at mb - mr, so that it holds mr real rows; the
    // edge tile reads the last of them.
    llvm::Value* top = ir::smin(b_, ir_, b_.CreateSub(mb, i64(s.mr)));
    llvm::Value* first_row = f32_ptr(src, b_.CreateMul(top, i64(s.lda)));
    ir::emit_for(b_, i64(0), i64(s.mr), 1, {{first_row, i64(s.lda)}, {panel[0], i64(1)}},
                 [&](llvm::Value*, const auto& row) {
      ir::emit_for(b_, i64(0), kb, 1, {{row[0], i64(1)}, {row[1], i64(s.mr)}}, [&](llvm::Value*, const auto& at) {
        b_.CreateAlignedStore(b_.CreateAlignedLoad(f32_, at[0], llvm::Align(4)), at[1], llvm::Align(4));
      }, "pa.p");
    }, "pa.i");
  }, "pa.ir");
  b_.CreateRetVoid();
}

void GemmEmitter::emit_pack_b(const PackBSpec& s, const std::string& name) {
  use_width(s.vec);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *src = arg++, *dst = arg++, *kb = arg++, *nb = arg++;
  const llvm::Align vec_align(size_t(W_) * 4);
  llvm::Value* zero = llvm::ConstantAggregateZero::get(vec_);
  const int nv = s.nr / W_;

  // Copies row p of the panel starting at column jr, from b(p, jr) at `from` (B transposed:
  // b(jr, p)) to `to`; `masked` only for the panel at the N edge, `cols` = nb - jr.
  auto copy_row = [&](llvm::Value* from, llvm::Value* to, llvm::Value* cols, bool masked) {
    for (int v = 0; v < nv; ++v) {
      llvm::Value* mask = masked ? lane_mask(b_.CreateSub(cols, i64(int64_t(v) * W_))) : nullptr;
      llvm::Value* x;
      if (!s.trans_b) {
        x = load_vector(f32_ptr(from, int64_t(v) * W_), llvm::Align(4), mask);
      } else {
        // B is N×K: the W values of row p sit ldb apart; gather them.
        std::vector<llvm::Constant*> offs;
        for (int l = 0; l < W_; ++l) offs.push_back(b_.getInt64(int64_t(l) * s.ldb));
        llvm::Value* base = f32_ptr(from, int64_t(v) * W_ * s.ldb);
        llvm::Value* ptrs = b_.CreateInBoundsGEP(f32_, base, llvm::ConstantVector::get(offs));
        x = b_.CreateMaskedGather(vec_, ptrs, llvm::Align(4), masked ? mask : b_.getAllOnesMask(llvm::ElementCount::getFixed(unsigned(W_))), zero);
      }
      b_.CreateAlignedStore(x, f32_ptr(to, int64_t(v) * W_), vec_align);
    }
  };
  llvm::Value* full = b_.CreateMul(b_.CreateSDiv(nb, i64(s.nr)), i64(s.nr));  // columns in whole panels
  // Along p: B's next row (transposed: next element), the panel's next row. Along jr: nr
  // columns on (transposed: nr rows), the next panel.
  llvm::Value* p_from = i64(s.trans_b ? 1 : s.ldb);
  llvm::Value* jr_from = i64(int64_t(s.nr) * (s.trans_b ? s.ldb : 1));
  llvm::Value* jr_to = b_.CreateMul(kb, i64(s.nr));
  // Read B in the order it lies in memory: row by row when rows are B's rows (a row of the
  // block is one run the hardware prefetcher follows; panel by panel, the block's rows were
  // read a few lines each), panel by panel when B is transposed (each gathered lane then
  // walks a row of its own).
  if (!s.trans_b) {
    ir::emit_for(b_, i64(0), kb, 1, {{src, p_from}, {dst, i64(s.nr)}}, [&](llvm::Value*, const auto& row) {
      ir::emit_for(b_, i64(0), full, s.nr, {{row[0], jr_from}, {row[1], jr_to}}, [&](llvm::Value* jr, const auto& at) {
        copy_row(at[0], at[1], b_.CreateSub(nb, jr), false);
      }, "pb.jr");
    }, "pb.p");
  } else {
    ir::emit_for(b_, i64(0), full, s.nr, {{src, jr_from}, {dst, jr_to}}, [&](llvm::Value* jr, const auto& panel) {
      ir::emit_for(b_, i64(0), kb, 1, {{panel[0], p_from}, {panel[1], i64(s.nr)}}, [&](llvm::Value*, const auto& at) {
        copy_row(at[0], at[1], b_.CreateSub(nb, jr), false);
      }, "pb.p");
    }, "pb.jr");
  }
  ir::emit_if(b_, b_.CreateICmpSLT(full, nb), [&] {
    llvm::Value* from = f32_ptr(src, s.trans_b ? b_.CreateMul(full, i64(s.ldb)) : full);
    llvm::Value* to = f32_ptr(dst, b_.CreateMul(full, kb));
    ir::emit_for(b_, i64(0), kb, 1, {{from, p_from}, {to, i64(s.nr)}}, [&](llvm::Value*, const auto& at) {
      copy_row(at[0], at[1], b_.CreateSub(nb, full), true);
    }, "pb.edge");
  });
  b_.CreateRetVoid();
}

}  // namespace livetune
