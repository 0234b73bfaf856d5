// A small kernel's whole call as one function: the code of the plan's tiles and epilogue one
// after another, each emitted with the call's sizes and offsets as constants, so that its K
// loop of a few steps is straight code (kStraightK), its masks are constants, and no call is
// made through a pointer.
#include <algorithm>

#include "jit/gemm_emitter.hpp"

namespace livetune {

void GemmEmitter::emit_whole_call(const WholeCallSpec& s, const std::string& name) {
  // The function's vector width (begin_function): the widest its pieces use.
  int width = 0;
  for (const TileSpec& t : s.tiles) width = std::max(width, t.vec);
  for (int t : s.tile_of)
    if (t < 0) width = widest_;
  use_width(width);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, ptr_, ptr_});
  auto arg = f->arg_begin();
  llvm::Value *a = arg++, *b = arg++, *c = arg++, *bias = arg++;
  for (size_t i = 0; i < s.calls.size(); ++i) {
    const PlannedCall& p = s.calls[i];
    if (s.tile_of[i] < 0) {
      use_width(widest_);
      // Without a bias the pointer is null and never read: a plain offset, not an in-bounds one.
      emit_epilogue_body(s.epilogue, f32_ptr(c, p.c), b_.CreateGEP(f32_, bias, i64(p.col)), i64(p.rows), i64(p.cols));
      continue;
    }
    const TileSpec& t = s.tiles[size_t(s.tile_of[i])];
    use_width(t.vec);
    const TileArgs args{f32_ptr(a, p.a), f32_ptr(b, p.b), f32_ptr(c, p.c), i64(p.kb), i64(p.first),
                        i64(p.cols),     i64(p.skip),     i64(p.count),    i64(p.panels)};
    t.dot ? emit_dot_tile_body(t, args) : emit_tile_body(t, args);
  }
  b_.CreateRetVoid();
}

}  // namespace livetune
