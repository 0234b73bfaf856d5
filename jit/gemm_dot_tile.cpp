// The dot tile, for B transposed and read where it lies: B's rows are C's columns, each a
// run along K, so a tile of rows × n values of C keeps rows × n accumulators that are vectors
// along K, and reduces each to its value of C after the K loop. For few rows of A (M = 1..8,
// a decoder's tokens on a weight stored out × in) this reads B once, as a few long streams,
// where packing it (transposing W × W blocks into panels) wrote and read B once more: at
// 1×4096×4096 the packed form reached 0.57 of the read roofline, at 8×4096×4096 0.43.
//
// One call runs `panels` of nr columns side by side, their nr (or `cols`, at the N edge)
// columns in groups of dot_columns(rows), the last cols mod that one by one, each group for
// `count` tiles one below the other.
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

void GemmEmitter::emit_dot_tile(const TileSpec& s, const std::string& name) {
  use_width(s.vec);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, ptr_, i64_, i64_, i64_, i64_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *a = arg++, *b = arg++, *c = arg++, *kb = arg++, *first = arg++, *cols = arg++;
  ++arg;  // skip_cols: a dot tile never moves left (it computes any number of columns)
  llvm::Value *count = arg++, *panels = arg++;
  llvm::Value* is_first = s.one_k_block ? b_.getTrue() : b_.CreateICmpNE(first, i64(0));
  // The K loop's whole vectors, then one masked step of the kb mod W left (no lanes when none).
  llvm::Value* whole_k = b_.CreateAnd(kb, i64(-int64_t(W_)));
  llvm::Value* tail_mask = lane_mask(b_.CreateSub(kb, whole_k));

  const int wide = std::min(dot_columns(s.rows, registers_), s.nr);
  llvm::FastMathFlags reassociate;
  reassociate.setAllowReassoc();
  llvm::IRBuilder<> at_entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  llvm::AllocaInst* sums = at_entry.CreateAlloca(vec_, i64(int64_t(s.rows) * wide), "sums");
  sums->setAlignment(llvm::Align(64));
  // rows × n values of C from A's rows at `a_t`, B's rows (C's columns) at `b_t`, into `c_t`.
  auto emit_block = [&](int n, llvm::Value* a_t, llvm::Value* b_t, llvm::Value* c_t) {
    std::vector<llvm::Value*> acc(size_t(s.rows * n), llvm::ConstantAggregateZero::get(vec_));
    auto step = [&](llvm::Value* a_p, llvm::Value* b_p, int u, llvm::Value* mask, std::vector<llvm::Value*>& cur) {
      std::vector<llvm::Value*> av;
      for (int r = 0; r < s.rows; ++r)
        av.push_back(load_vector(f32_ptr(a_p, int64_t(r) * s.lda + int64_t(u) * W_), llvm::Align(4), mask));
      for (int j = 0; j < n; ++j) {
        llvm::Value* row = f32_ptr(b_p, int64_t(j) * s.ldb + int64_t(u) * W_);
        // The next group's rows into L2, prefetch_n floats ahead of this step: a group's rows
        // start cold, and the hardware did not fetch them ahead (8×4096×4096: 35 -> 41–49
        // GFLOP/s, 1×4096×4096: 9 -> 13–14). Past B's end, harmless.
        if (s.prefetch_n > 0)
          prefetch_lines(b_.CreateGEP(f32_, row, i64(int64_t(n) * s.ldb + s.prefetch_n)), 1);
        llvm::Value* bv = load_vector(row, llvm::Align(4), mask);
        for (int r = 0; r < s.rows; ++r) {
          auto& x = cur[size_t(r * n + j)];
          x = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {av[size_t(r)], bv, x});
        }
      }
    };
    // Whole vectors by `unroll`, then one by one, then the masked step.
    auto steps = [&](int count) {
      return [&, count](const std::vector<llvm::Value*>& at, std::vector<llvm::Value*>& cur) {
        for (int u = 0; u < count; ++u) step(at[0], at[1], u, nullptr, cur);
      };
    };
    const int64_t floats = int64_t(s.unroll) * W_;
    LoopState end = emit_accumulating_loop({i64(0), {a_t, b_t}}, whole_k, floats, {floats, floats}, acc,
                                           steps(s.unroll), "dot.k");
    if (s.tail) end = emit_accumulating_loop(end, whole_k, W_, {W_, W_}, acc, steps(1), "dot.ktail");
    step(end.ptrs[0], end.ptrs[1], 0, tail_mask, acc);

    // C = sum on the first K block (+ beta·C), C + sum after it; C is read only when needed.
    // The accumulators go through a stack copy to one reduction in a loop: a reduction each,
    // straight-line, took the instruction selector ~20 ms per tile (24 of them, 4 shuffles
    // and adds each, in one block).
    for (size_t i = 0; i < acc.size(); ++i)
      b_.CreateAlignedStore(acc[i], b_.CreateConstInBoundsGEP1_64(vec_, sums, i), llvm::Align(64));
    const bool write_only = s.one_k_block && s.beta == 0.0f;
    ir::emit_for(b_, i64(0), i64(int64_t(acc.size())), 1, [&](llvm::Value* i) {
      llvm::Value* v = b_.CreateAlignedLoad(vec_, b_.CreateInBoundsGEP(vec_, sums, i), llvm::Align(64));
      llvm::Value* sum = b_.CreateFAddReduce(llvm::ConstantFP::getNegativeZero(f32_), v);
      llvm::cast<llvm::Instruction>(sum)->setFastMathFlags(reassociate);
      llvm::Value* r = b_.CreateUDiv(i, i64(n));
      llvm::Value* j = b_.CreateURem(i, i64(n));
      llvm::Value* at = f32_ptr(c_t, b_.CreateAdd(b_.CreateMul(r, i64(s.ldc)), j));
      if (!write_only) {
        llvm::Value* old = b_.CreateAlignedLoad(f32_, at, llvm::Align(4));
        llvm::Value* on_first =
            s.beta == 0.0f ? sum : b_.CreateFAdd(b_.CreateFMul(old, llvm::ConstantFP::get(f32_, s.beta)), sum);
        sum = b_.CreateSelect(is_first, on_first, b_.CreateFAdd(old, sum));
      }
      b_.CreateAlignedStore(sum, at, llvm::Align(4));
    }, "dot.sums");
  };

  // Down the tiles below each other inside a group of columns: the group's rows of B come
  // from memory once and from L1 for the other tiles (8×4096×4096 in two tiles of 4 rows:
  // 47.8 GFLOP/s with a tile's columns all before the next tile's, 49–55 so; two builds, not
  // paired).
  auto down_the_tiles = [&](int n, llvm::Value* b_g, llvm::Value* c_g) {
    ir::emit_for(b_, i64(0), count, 1, {{a, i64(int64_t(s.rows) * s.lda)}, {c_g, i64(int64_t(s.rows) * s.ldc)}},
                 [&](llvm::Value*, const std::vector<llvm::Value*>& at) { emit_block(n, at[0], b_g, at[1]); }, "tiles");
  };
  ir::emit_for(b_, i64(0), panels, 1, {{b, i64(int64_t(s.nr) * s.ldb)}, {c, i64(s.nr)}},
               [&](llvm::Value*, const std::vector<llvm::Value*>& panel) {
    llvm::Value* grouped = b_.CreateMul(b_.CreateUDiv(cols, i64(wide)), i64(wide));
    ir::emit_for(b_, i64(0), grouped, wide, {{panel[0], i64(int64_t(wide) * s.ldb)}, {panel[1], i64(wide)}},
                 [&](llvm::Value*, const std::vector<llvm::Value*>& g) { down_the_tiles(wide, g[0], g[1]); },
                 "dot.groups");
    if (wide > 1) {
      const std::vector<ir::Walk> rest = {{f32_ptr(panel[0], b_.CreateMul(grouped, i64(s.ldb))), i64(s.ldb)},
                                          {f32_ptr(panel[1], grouped), i64(1)}};
      ir::emit_for(b_, grouped, cols, 1, rest,
                   [&](llvm::Value*, const std::vector<llvm::Value*>& g) { down_the_tiles(1, g[0], g[1]); },
                   "dot.columns");
    }
  }, "panels");
  b_.CreateRetVoid();
}

}  // namespace livetune
