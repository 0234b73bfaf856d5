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

// Rows x[r] of W lanes → columns, in the usual sequence of in-lane and lane-crossing
// shuffles, each one instruction (unpcklps/unpckhps, unpcklpd/unpckhpd, then shuff64x2 or
// vperm2f128 of even and odd 128-bit blocks), with a fence after each stage: across stages
// the instruction selector's demanded-elements analysis walks the whole tree of shuffles,
// which took it ~8 ms per pack function (warm, llc); fenced, 5.5–6.5 ms against the gathers' 3.
// A fence is no instruction.
std::vector<llvm::Value*> GemmEmitter::transpose(std::vector<llvm::Value*> x) {
  const int stages = W_ == 16 ? 4 : 3;
  for (int s = 0; s < stages; ++s) {
    std::vector<int> low, high;
    if (s < 2) {
      // Per 128-bit block q: floats (s = 0) or pairs of floats (s = 1) of a and b interleaved.
      for (int q = 0; q < W_; q += 4) {
        const std::vector<int> lo = s == 0 ? std::vector<int>{q, W_ + q, q + 1, W_ + q + 1}
                                           : std::vector<int>{q, q + 1, W_ + q, W_ + q + 1};
        for (int i : lo) low.push_back(i), high.push_back(i + 2);
      }
    } else {
      // a's even 128-bit blocks, then b's; the same of the odd blocks.
      for (int half = 0; half < 2; ++half)
        for (int from_b = 0; from_b < 2; ++from_b)
          for (int block = half; block < W_ / 4; block += 2)
            for (int i = 0; i < 4; ++i) (half == 0 ? low : high).push_back(from_b * W_ + 4 * block + i);
    }
    const int d = 1 << s;
    for (int r = 0; r < W_; ++r) {
      if (r & d) continue;
      llvm::Value* a = x[size_t(r)];
      llvm::Value* b = x[size_t(r + d)];
      x[size_t(r)] = b_.CreateShuffleVector(a, b, low);
      x[size_t(r + d)] = b_.CreateShuffleVector(a, b, high);
    }
    for (auto& v : x) v = b_.CreateArithmeticFence(v, vec_);
  }
  // The sequence leaves column c in vector c with bits 0 and 1 swapped.
  std::vector<llvm::Value*> columns(x.size());
  for (size_t i = 0; i < x.size(); ++i) columns[(i & ~size_t(3)) | (i & 1) << 1 | (i >> 1 & 1)] = x[i];
  return columns;
}

void GemmEmitter::emit_pack_b(const PackBSpec& s, const std::string& name) {
  use_width(s.vec);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, i64_, i64_});
  auto arg = f->arg_begin();
  llvm::Value *src = arg++, *dst = arg++, *kb = arg++, *nb = arg++;
  if (s.phases > 1) {
    emit_pack_b_phases(s, src, dst, kb, nb);
    return;
  }
  const llvm::Align vec_align(size_t(W_) * 4);
  const int nv = s.nr / W_;

  // Copies row p of the panel starting at column jr, from b(p, jr) at `from` to `to` (B not
  // transposed); `masked` only for the panel at the N edge, `cols` = nb - jr.
  auto copy_row = [&](llvm::Value* from, llvm::Value* to, llvm::Value* cols, bool masked) {
    for (int v = 0; v < nv; ++v) {
      llvm::Value* mask = masked ? lane_mask(b_.CreateSub(cols, i64(int64_t(v) * W_))) : nullptr;
      b_.CreateAlignedStore(load_vector(f32_ptr(from, int64_t(v) * W_), llvm::Align(4), mask),
                            f32_ptr(to, int64_t(v) * W_), vec_align);
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
  // read a few lines each), panel by panel and W rows of B at a time when B is transposed
  // (each row of B then read along its run).
  if (!s.trans_b) {
    ir::emit_for(b_, i64(0), kb, 1, {{src, p_from}, {dst, i64(s.nr)}}, [&](llvm::Value*, const auto& row) {
      ir::emit_for(b_, i64(0), full, s.nr, {{row[0], jr_from}, {row[1], jr_to}}, [&](llvm::Value* jr, const auto& at) {
        copy_row(at[0], at[1], b_.CreateSub(nb, jr), false);
      }, "pb.jr");
    }, "pb.p");
    ir::emit_if(b_, b_.CreateICmpSLT(full, nb), [&] {
      llvm::Value* from = f32_ptr(src, full);
      llvm::Value* to = f32_ptr(dst, b_.CreateMul(full, kb));
      ir::emit_for(b_, i64(0), kb, 1, {{from, p_from}, {to, i64(s.nr)}}, [&](llvm::Value*, const auto& at) {
        copy_row(at[0], at[1], b_.CreateSub(nb, full), true);
      }, "pb.edge");
    });
  } else {
    // W × W blocks: W rows of B (W values of p each, one contiguous run) loaded and
    // transposed in registers, one group of W columns of the panel at a time; the last kb mod
    // W values of p loaded masked, their rows of the block stored. Gathering every row (W
    // lanes from W rows of B ldb apart, often 4 KiB: all in one L1 set) held 32×4096×1024 to
    // 18 GFLOP/s on Zen 4, 28% of the same GEMM on B not transposed; with these blocks it runs
    // as fast as that. The panel at the N edge too, its rows past nb zeros (gathered row by
    // row it took longer than the FMAs of a small GEMM: 12×33×56 on 6 × 48 42 GFLOP/s, 76 so).
    // One block's code for whole panels and the edge, whole blocks of K and its tail
    // (compiling it four times over made compiles 37–69 ms): its lane masks are all-true but at
    // the edges. A group of W rows that runs past nb has a copy of its own: a row there loads
    // nothing but still gives an address, the last row's, for a masked-off load of an unmapped
    // page costs a fault assist on Zen 5 (6×261×576 ran at 12 GFLOP/s instead of 70 in
    // processes where the page after B was unmapped); clamping every row's address cost the
    // whole groups a tenth of their speed.
    const std::vector<ir::Walk> panels = {{src, jr_from}, {dst, jr_to}};
    ir::emit_for(b_, i64(0), nb, s.nr, panels, [&](llvm::Value* jr, const auto& panel) {
      llvm::Value* cols = b_.CreateSub(nb, jr);
      const std::vector<ir::Walk> groups = {{panel[0], i64(int64_t(W_) * s.ldb)}, {panel[1], i64(W_)}};
      ir::emit_for(b_, i64(0), i64(nv), 1, groups, [&](llvm::Value* v, const auto& group) {
        // The group's last row of B, counted from its first.
        llvm::Value* last = b_.CreateSub(b_.CreateSub(cols, b_.CreateMul(v, i64(W_))), i64(1));
        llvm::Value* whole = b_.CreateICmpSGE(last, i64(W_ - 1));
        const std::vector<ir::Walk> blocks = {{group[0], i64(W_)}, {group[1], i64(int64_t(W_) * s.nr)}};
        auto copy_blocks = [&](bool edge) {
          ir::emit_for(b_, i64(0), kb, W_, blocks, [&](llvm::Value* p, const auto& at) {
            llvm::Value* left = b_.CreateSub(kb, p);
            llvm::Value* lanes = lane_mask(left);
            std::vector<llvm::Value*> rows;
            // Each row's line four blocks on into L2: W rows are W streams ldb apart (pages
            // apart where K is a multiple of 1024) that the hardware followed late (B
            // transposed, Zen 5, against oneDNN in the same run, 3–5 runs each: 210×1024×2048
            // 0.91–0.95x, 0.94–0.97x so; 135×768×2048 0.94–0.96x, 0.97–0.98x; 196×261×576, B in
            // L2, even). Past B's end a prefetch is dropped, not faulted.
            constexpr int64_t kAhead = 64;
            if (!edge)
              for (int l = 0; l < W_; ++l) prefetch_lines(f32_ptr(at[0], int64_t(l) * s.ldb + kAhead), 1);
            for (int l = 0; l < W_; ++l) {
              llvm::Value* mask = lanes;
              llvm::Value* row = i64(int64_t(l) * s.ldb);
              if (edge) {
                llvm::Value* real = b_.CreateICmpSLE(i64(l), last);
                mask = b_.CreateAnd(lanes, b_.CreateVectorSplat(unsigned(W_), real));
                row = b_.CreateMul(ir::smin(b_, i64(l), last), i64(s.ldb));
              }
              rows.push_back(load_vector(f32_ptr(at[0], row), llvm::Align(4), mask));
            }
            rows = transpose(rows);
            for (int l = 0; l < W_; ++l) {
              llvm::Value* store = b_.CreateVectorSplat(unsigned(W_), b_.CreateICmpSLT(i64(l), left));
              store_vector(rows[size_t(l)], f32_ptr(at[1], int64_t(l) * s.nr), vec_align, store);
            }
          }, edge ? "pb.edge_t" : "pb.t");
        };
        ir::emit_if(b_, whole, [&] { copy_blocks(false); });
        ir::emit_if(b_, b_.CreateNot(whole), [&] { copy_blocks(true); });
      }, "pb.v");
    }, "pb.jr");
  }
  b_.CreateRetVoid();
}

// B transposed into the layout of a tile with phases (PackBSpec::phases): per panel of
// nr / phases columns (rows of B), a row of nr floats for each `phases` values of k, column j's
// values — a run of B's row j — at j·phases. Columns past nb are zeros. Its A (the swapped
// form's) is a few rows: a masked load of a run per column is all it takes.
void GemmEmitter::emit_pack_b_phases(const PackBSpec& s, llvm::Value* src, llvm::Value* dst, llvm::Value* kb,
                                     llvm::Value* nb) {
  const int columns = s.nr / s.phases;
  auto* run = llvm::FixedVectorType::get(f32_, unsigned(s.phases));
  llvm::Value* zeros = llvm::ConstantAggregateZero::get(run);
  const std::vector<ir::Walk> panels = {{src, i64(int64_t(columns) * s.ldb)}, {dst, b_.CreateMul(kb, i64(columns))}};
  ir::emit_for(b_, i64(0), nb, columns, panels, [&](llvm::Value* jr, const auto& panel) {
    llvm::Value* left = b_.CreateSub(nb, jr);
    const std::vector<ir::Walk> groups = {{panel[0], i64(s.phases)}, {panel[1], i64(s.nr)}};
    ir::emit_for(b_, i64(0), kb, s.phases, groups, [&](llvm::Value*, const auto& at) {
      for (int j = 0; j < columns; ++j) {
        // A column past nb reads at the last one's address (emit_pack_b: no fault assist).
        llvm::Value* real = b_.CreateVectorSplat(unsigned(s.phases), b_.CreateICmpSLT(i64(j), left));
        llvm::Value* row = b_.CreateMul(ir::smin(b_, i64(j), b_.CreateSub(left, i64(1))), i64(s.ldb));
        llvm::Value* x = b_.CreateMaskedLoad(run, f32_ptr(at[0], row), llvm::Align(4), real, zeros);
        b_.CreateAlignedStore(x, f32_ptr(at[1], int64_t(j) * s.phases), llvm::Align(4));
      }
    }, "pb.g");
  }, "pb.panel");
  b_.CreateRetVoid();
}

}  // namespace livetune
