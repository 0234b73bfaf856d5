// A small kernel's whole call as one function: the plan's calls one after another, each of a
// tile emitted with that call's K, columns and masks as constants (so that a K loop of a few
// steps is straight code, kStraightK), and the epilogue's inline. Calls of one tile with the
// same constants share its function: emitted once per call, the code of 16 calls in one block
// took the scheduler up to 0.3 ms per FMA to compile (46×46×3, 40×33×8 with random configs).
#include <map>
#include <string>

#include "jit/gemm_emitter.hpp"

namespace livetune {

void GemmEmitter::emit_whole_call(const WholeCallSpec& s, const std::string& name) {
  use_width(widest_);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, ptr_, ptr_});
  auto arg = f->arg_begin();
  llvm::Value *a = arg++, *b = arg++, *c = arg++, *bias = arg++;
  std::map<std::string, llvm::Function*> tiles;  // by the tile and its constants
  for (size_t i = 0; i < s.calls.size(); ++i) {
    const PlannedCall& p = s.calls[i];
    if (s.tile_of[i] < 0) {
      use_width(widest_);
      // Without a bias the pointer is null and never read: a plain offset, not an in-bounds one.
      emit_epilogue_body(s.epilogue, f32_ptr(c, p.c), b_.CreateGEP(f32_, bias, i64(p.col)), i64(p.rows), i64(p.cols));
      continue;
    }
    const TileSpec& t = s.tiles[size_t(s.tile_of[i])];
    const std::string key = std::to_string(s.tile_of[i]) + " " + std::to_string(p.kb) + " " + std::to_string(p.first) +
                            " " + std::to_string(p.cols) + " " + std::to_string(p.skip);
    llvm::Function*& tile = tiles[key];
    if (!tile) {
      const llvm::IRBuilderBase::InsertPointGuard back(b_);
      use_width(t.vec);
      tile = begin_function(name + ".tile" + std::to_string(tiles.size()), {ptr_, ptr_, ptr_, i64_, i64_});
      tile->setLinkage(llvm::Function::InternalLinkage);
      std::vector<llvm::Value*> args;
      for (auto& x : tile->args()) args.push_back(&x);
      const TileArgs at{args[0], args[1], args[2], i64(p.kb), i64(p.first), i64(p.cols), i64(p.skip), args[3], args[4]};
      t.dot ? emit_dot_tile_body(t, at) : emit_tile_body(t, at);
      b_.CreateRetVoid();
    }
    b_.CreateCall(tile, {f32_ptr(a, p.a), f32_ptr(b, p.b), f32_ptr(c, p.c), i64(p.count), i64(p.panels)});
  }
  b_.CreateRetVoid();
}

}  // namespace livetune
