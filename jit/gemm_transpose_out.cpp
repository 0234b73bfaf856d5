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
  const llvm::Align t_align(size_t(W_) * 4), align(4);
  // Blocks of W columns of C (W rows of C^T), each down all rows of C (W columns of C^T a time).
  std::vector<ir::Walk> walks{{t, i64(int64_t(W_) * s.ldt)}, {c, i64(W_)}};
  if (s.bias) walks.push_back({bias, i64(W_)});
  ir::emit_for(b_, i64(0), cols, W_, walks, [&](llvm::Value* j, const auto& at) {
    llvm::Value* lanes = b_.CreateSub(cols, j);
    llvm::Value* bias_v = s.bias ? load_vector(at[2], align, lane_mask(lanes)) : nullptr;
    ir::emit_for(b_, i64(0), rows, W_, {{at[0], i64(W_)}, {at[1], i64(int64_t(W_) * s.ldc)}},
                 [&](llvm::Value* i, const auto& block) {
      std::vector<llvm::Value*> x;
      for (int r = 0; r < W_; ++r) x.push_back(b_.CreateAlignedLoad(vec_, f32_ptr(block[0], int64_t(r) * s.ldt), t_align));
      x = transpose(x);
      for (int r = 0; r < W_; ++r) {
        // Row i + r of C, where it is one: its first `lanes` values.
        llvm::Value* real = b_.CreateICmpSLT(b_.CreateAdd(i, i64(r)), rows);
        llvm::Value* mask = lane_mask(b_.CreateSelect(real, lanes, i64(0)));
        llvm::Value* at_c = f32_ptr(block[1], int64_t(r) * s.ldc);
        llvm::Value* v = x[size_t(r)];
        if (s.beta != 0.0f)
          v = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {load_vector(at_c, align, mask), splat(s.beta), v});
        if (bias_v) v = b_.CreateFAdd(v, bias_v);
        store_vector(emit_activation(s.act, v), at_c, align, mask);
      }
    }, "tout.i");
  }, "tout.j");
  b_.CreateRetVoid();
}

}  // namespace livetune
