// The entry point: reads the argument block, walks the three cache-block loops in the
// configured order (packing each block where its indices are known), and runs the
// macro-kernel: register tiles over one block, with edge variants at the M and N ends.
#include <functional>
#include <string>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"
#include "jit/kernel.hpp"

namespace livetune {
namespace {

struct Block {
  llvm::Value* start = nullptr;  // first index of the block
  llvm::Value* size = nullptr;   // its extent
};

}  // namespace

void GemmEmitter::emit_entry() {
  llvm::Function* f = new_function(entry_name_.c_str(), llvm::FunctionType::get(b_.getVoidTy(), {ptr_}, false), false);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  llvm::Value* args = f->getArg(0);

  auto* args_type = llvm::StructType::get(ctx_, {ptr_, ptr_, ptr_, ptr_, ptr_, b_.getInt64Ty(), b_.getInt64Ty()});
  auto field = [&](unsigned i, llvm::Type* t, const char* name) {
    return b_.CreateAlignedLoad(t, b_.CreateStructGEP(args_type, args, i), llvm::Align(8), name);
  };
  static_assert(sizeof(GemmArgs) == 7 * 8, "GemmArgs layout is mirrored in the IR");
  llvm::Value* a = field(0, ptr_, "a");
  llvm::Value* b = field(1, ptr_, "b");
  llvm::Value* c = field(2, ptr_, "c");
  llvm::Value* bias = field(3, ptr_, "bias");
  llvm::Value* ws = field(4, ptr_, "workspace");
  llvm::Value* begin = field(5, b_.getInt64Ty(), "begin");
  llvm::Value* end = field(6, b_.getInt64Ty(), "end");

  llvm::Value *row_lo = i64(0), *row_hi = i64(w_.m), *col_lo = i64(0), *col_hi = i64(w_.n);
  if (c_.split == Split::m) {
    row_lo = b_.CreateMul(begin, i64(c_.mr));
    row_hi = ir::smin(b_, b_.CreateMul(end, i64(c_.mr)), i64(w_.m));
  } else {
    col_lo = b_.CreateMul(begin, i64(c_.nr));
    col_hi = ir::smin(b_, b_.CreateMul(end, i64(c_.nr)), i64(w_.n));
  }
  llvm::Value* a_pack = ws;
  llvm::Value* b_pack = f32_ptr(ws, gemm_packed_a_floats(w_, c_));

  static const char* kOrders[] = {"nkm", "nmk", "knm", "kmn", "mkn", "mnk"};
  const std::string order = kOrders[int(c_.order)];
  Block blk_m, blk_n, blk_k;
  bool a_packed = false, b_packed = false;

  // One cache-block loop per level, outermost first; the innermost runs the macro-kernel.
  std::function<void(size_t)> level = [&](size_t depth) {
    if (c_.pack_b && !b_packed && blk_n.start && blk_k.start) {
      llvm::Value* src = w_.trans_b ? f32_ptr(b, b_.CreateAdd(b_.CreateMul(blk_n.start, i64(w_.ldb)), blk_k.start))
                                    : f32_ptr(b, b_.CreateAdd(b_.CreateMul(blk_k.start, i64(w_.ldb)), blk_n.start));
      b_.CreateCall(pack_b_function(), {src, b_pack, blk_k.size, blk_n.size});
      b_packed = true;
    }
    if (c_.pack_a && !a_packed && blk_m.start && blk_k.start) {
      llvm::Value* src = f32_ptr(a, b_.CreateAdd(b_.CreateMul(blk_m.start, i64(w_.lda)), blk_k.start));
      b_.CreateCall(pack_a_function(), {src, a_pack, blk_m.size, blk_k.size});
      a_packed = true;
    }
    if (depth == order.size()) {
      emit_macro_kernel(blk_m.start, blk_m.size, blk_n.start, blk_n.size, blk_k.start, blk_k.size);
      return;
    }
    const char dim = order[depth];
    Block& blk = dim == 'm' ? blk_m : dim == 'n' ? blk_n : blk_k;
    llvm::Value* lo = dim == 'm' ? row_lo : dim == 'n' ? col_lo : i64(0);
    llvm::Value* hi = dim == 'm' ? row_hi : dim == 'n' ? col_hi : i64(w_.k);
    const int64_t step = dim == 'm' ? c_.mc : dim == 'n' ? c_.nc : c_.kc;
    const std::string name = std::string("block_") + dim;
    ir::emit_for(b_, lo, hi, step, [&](llvm::Value* iv) {
      blk = Block{iv, ir::smin(b_, i64(step), b_.CreateSub(hi, iv))};
      level(depth + 1);
      blk = Block{};
      if (dim == 'n' || dim == 'k') b_packed = false;
      if (dim == 'm' || dim == 'k') a_packed = false;
    }, name.c_str());
  };
  ops_ = Operands{a, b, c, bias, a_pack, b_pack};
  level(0);
  b_.CreateRetVoid();
}

void GemmEmitter::emit_macro_kernel(llvm::Value* ic, llvm::Value* mb, llvm::Value* jc, llvm::Value* nb,
                                    llvm::Value* pc, llvm::Value* kb) {
  const int m_edge = int(w_.m % c_.mr);
  llvm::Value* first = b_.CreateICmpEQ(pc, i64(0));
  llvm::Value* last = b_.CreateICmpEQ(b_.CreateAdd(pc, kb), i64(w_.k));
  ir::emit_for(b_, i64(0), nb, c_.nr, [&](llvm::Value* jr) {
    llvm::Value* col = b_.CreateAdd(jc, jr);
    llvm::Value* b_tile = c_.pack_b ? f32_ptr(ops_.b_pack, b_.CreateMul(jr, kb))
                                    : f32_ptr(ops_.b, b_.CreateAdd(b_.CreateMul(pc, i64(w_.ldb)), col));
    llvm::Value* bias_tile = f32_ptr(ops_.bias, col);
    llvm::Value* cols = ir::smin(b_, i64(c_.nr), b_.CreateSub(i64(w_.n), col));
    ir::emit_for(b_, i64(0), mb, c_.mr, [&](llvm::Value* ir_) {
      llvm::Value* row = b_.CreateAdd(ic, ir_);
      llvm::Value* a_tile = c_.pack_a ? f32_ptr(ops_.a_pack, b_.CreateMul(ir_, kb))
                                      : f32_ptr(ops_.a, b_.CreateAdd(b_.CreateMul(row, i64(w_.lda)), pc));
      llvm::Value* c_tile = f32_ptr(ops_.c, b_.CreateAdd(b_.CreateMul(row, i64(w_.ldc)), col));
      std::vector<llvm::Value*> args{a_tile, b_tile, c_tile, bias_tile, kb, first, last, cols};
      if (m_edge == 0) {
        b_.CreateCall(microkernel(c_.mr), args);
        return;
      }
      // The last rows of M, if fewer than mr, need a tile of their own height.
      llvm::Function* f = b_.GetInsertBlock()->getParent();
      auto* full = llvm::BasicBlock::Create(ctx_, "full_rows", f);
      auto* edge = llvm::BasicBlock::Create(ctx_, "edge_rows", f);
      auto* done = llvm::BasicBlock::Create(ctx_, "rows_done", f);
      b_.CreateCondBr(b_.CreateICmpSLE(b_.CreateAdd(row, i64(c_.mr)), i64(w_.m)), full, edge);
      b_.SetInsertPoint(full);
      b_.CreateCall(microkernel(c_.mr), args);
      b_.CreateBr(done);
      b_.SetInsertPoint(edge);
      b_.CreateCall(microkernel(m_edge), args);
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
    }, "tile_m");
  }, "tile_n");
}

}  // namespace livetune
