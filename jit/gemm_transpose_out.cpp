// The swapped form's write (GemmConfig::swap): C^T's rows, buffered in the workspace, go into
// C transposed, W × W values at a time through the register transpose of the B pack, with
// beta, bias and activation on the way (a row of C is a run of C^T's column).
#include <llvm/IR/Intrinsics.h>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

void GemmEmitter::emit_transpose_out(const TransposeOutSpec& s, const std::string& name) {
  use_width(widest_);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, ptr_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *t = arg++, *c = arg++, *bias = arg++, *rows = arg++, *cols = arg++;
  const llvm::Align vec_align(size_t(W_) * 4), align(4);
  // The transposed block goes through the stack, so that the update of C (GELU's ~20
  // instructions) is emitted once, in a loop over the block's rows, not once per row: 16
  // copies took ~6 ms more of every compile of a swapped kernel.
  llvm::AllocaInst* block = b_.CreateAlloca(f32_, i64(int64_t(W_) * W_), "tout_block");
  block->setAlignment(vec_align);
  // Blocks of W columns of C (W rows of C^T), each down all rows of C (W columns of C^T a time).
  std::vector<ir::Walk> walks{{t, i64(int64_t(W_) * s.ldt)}, {c, i64(W_)}};
  if (s.bias) walks.push_back({bias, i64(W_)});
  ir::emit_for(b_, i64(0), cols, W_, walks, [&](llvm::Value* j, const auto& at) {
    llvm::Value* mask = lane_mask(b_.CreateSub(cols, j));  // C's columns j.. that there are
    llvm::Value* bias_v = s.bias ? load_vector(at[2], align, mask) : nullptr;
    ir::emit_for(b_, i64(0), rows, W_, {{at[0], i64(W_)}, {at[1], i64(int64_t(W_) * s.ldc)}},
                 [&](llvm::Value* i, const auto& from) {
      std::vector<llvm::Value*> x;
      for (int r = 0; r < W_; ++r) x.push_back(b_.CreateAlignedLoad(vec_, f32_ptr(from[0], int64_t(r) * s.ldt), vec_align));
      x = transpose(x);
      for (int r = 0; r < W_; ++r) b_.CreateAlignedStore(x[size_t(r)], f32_ptr(block, int64_t(r) * W_), vec_align);
      // Rows i.. of C that there are, each from its vector of the block.
      llvm::Value* last = ir::smin(b_, i64(W_), b_.CreateSub(rows, i));
      ir::emit_for(b_, i64(0), last, 1, {{block, i64(W_)}, {from[1], i64(s.ldc)}}, [&](llvm::Value*, const auto& row) {
        llvm::Value* v = b_.CreateAlignedLoad(vec_, row[0], vec_align);
        if (s.beta != 0.0f)
          v = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {load_vector(row[1], align, mask), splat(s.beta), v});
        if (bias_v) v = b_.CreateFAdd(v, bias_v);
        store_vector(emit_activation(s.act, v), row[1], align, mask);
      }, "tout.r");
    }, "tout.i");
  }, "tout.j");
  b_.CreateRetVoid();
}

}  // namespace livetune
