// The register tile: rows × nv vectors of accumulators carried in phi nodes through the
// K loop (unrolled), one broadcast of A and nv vector loads of B per K step. One call runs
// a column of such tiles, one below the other.
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <string>

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

void GemmEmitter::emit_tile(const TileSpec& s, const std::string& name) {
  use_width(s.vec);
  llvm::Function* f = begin_function(name, {ptr_, ptr_, ptr_, i64_, i64_, i64_, i64_, i64_, i64_});
  std::vector<llvm::Value*> args;
  for (auto& arg : f->args()) args.push_back(&arg);
  const TileArgs at{args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8]};
  s.dot ? emit_dot_tile_body(s, at) : emit_tile_body(s, at);
  b_.CreateRetVoid();
}

void GemmEmitter::emit_tile_body(const TileSpec& s, const TileArgs& in) {
  llvm::Value *a = in.a, *b = in.b, *c = in.c, *kb = s.k > 0 ? i64(s.k) : in.kb, *first = in.first, *cols = in.cols,
              *skip_cols = in.skip_cols, *count = in.count, *panels = in.panels;
  const int nv = s.nr / W_;
  // Columns of C the tile writes, and their vectors: fewer than its lanes with phases.
  const int c_cols = s.nr / s.phases, c_nv = (c_cols + W_ - 1) / W_;
  // Lanes of each vector of the tile's width read (B narrower than the tile) and written.
  auto lanes_below_cols = [&](int vectors) {
    std::vector<llvm::Value*> m;
    for (int v = 0; v < vectors; ++v) m.push_back(lane_mask(b_.CreateSub(cols, i64(int64_t(v) * W_))));
    return m;
  };
  auto lanes_read = [&] { return lanes_below_cols(nv); };
  auto lanes_written = [&] {
    // Only a tile on B read in place moves left (packed panels are padded instead).
    if (s.pack_b) return lanes_below_cols(c_nv);
    std::vector<llvm::Value*> m;
    for (int v = 0; v < nv; ++v)
      m.push_back(lane_range_mask(b_.CreateSub(skip_cols, i64(int64_t(v) * W_)),
                                  b_.CreateSub(cols, i64(int64_t(v) * W_))));
    return m;
  };
  const std::vector<llvm::Value*> loads = s.masked_loads ? lanes_read() : std::vector<llvm::Value*>(nv, nullptr);
  // With cheap masks every tile stores through them; without, the N edge stores through
  // emit_store_edge.
  const std::vector<llvm::Value*> stores = cheap_masks_ ? lanes_written() : std::vector<llvm::Value*>{};
  llvm::Value* is_first = s.one_k_block ? b_.getTrue() : b_.CreateICmpNE(first, i64(0));
  // `count` tiles one below the other, on the same columns of B (the next A rows are a panel
  // further on packed A), or side by side on the same rows of A.
  llvm::Value* a_step = s.sweep_n ? i64(0)
                        : s.pack_a  ? b_.CreateMul(kb, i64(s.a_panel))
                                    : i64(int64_t(s.rows) * s.lda);
  const int64_t b_step = s.sweep_n ? s.nr : 0;
  const int64_t c_step = s.c_buffer ? int64_t(s.rows) * s.nr : s.sweep_n ? s.nr : int64_t(s.rows) * s.ldc;
  // A large packed B block (kc × nc) lies in L3, and down a column the first tile waited for
  // its panel. The call's tiles fetch the next panel between them, 16 lines each from the
  // first tile on until the panel is covered (16: enough tiles for a panel in the columns of
  // the default blocks, a short burst beside the tile's own misses; one line per tile of one
  // row and all tiles fetching, most lines past the panel, ran 15% slower at 512³).
  constexpr int64_t kNextPanelLines = 16;
  // C written row band by row band beyond the caches (Zen 5, a probe storing 6 rows × 64
  // floats at a time over 36 MB): 22 GB/s, fetching 64 floats ahead 26, 256–512 ahead 35–37,
  // 1024 27.
  constexpr int64_t kCAheadFloats = 256;
  // Tile t's prefetch_n distance: once it starts past the call's last column, the same
  // columns of the next K block (8×4096×4096 on 8 × 48, kc/nc 128/768, 64/1536, 128/1536,
  // alternated with fetching on past the last column: 1.06–1.15x; Zen 5).
  auto fetch_n = [&](llvm::Value* t) -> llvm::Value* {
    if (!s.fetch_wraps) return i64(s.prefetch_n);
    llvm::Value* width = b_.CreateMul(count, i64(s.nr));
    llvm::Value* past = b_.CreateICmpSGE(b_.CreateAdd(b_.CreateMul(t, i64(s.nr)), i64(s.prefetch_n)), width);
    llvm::Value* next_block = s.k_stride > 1 ? i64(s.ldb) : b_.CreateMul(kb, i64(s.ldb));
    llvm::Value* wrapped = b_.CreateSub(b_.CreateAdd(next_block, i64(s.prefetch_n)), width);
    return b_.CreateSelect(past, wrapped, i64(s.prefetch_n));
  };
  llvm::Value* panel_floats = b_.CreateMul(kb, i64(s.pack_b ? s.b_panel / s.phases : s.nr));
  // `panels` columns of such tiles side by side (whole panels), one call for all: on short K
  // blocks the call per panel was a large part of the time (Zen 3, 8×4096×4096 on 2×32 tiles
  // over blocks of 8 rows: 1.09x, median of six runs alternated with a call per panel).
  llvm::Value* panel_step = s.pack_b ? panel_floats : i64(s.nr);
  ir::emit_for(b_, i64(0), panels, 1, {{b, panel_step}, {c, i64(c_cols)}},
               [&](llvm::Value*, const std::vector<llvm::Value*>& panel) {
    llvm::Value *b_q = panel[0], *c_q = panel[1];
    llvm::Value* next_panel = s.next_panel ? b_.CreateGEP(f32_, b_q, panel_floats) : nullptr;
    ir::emit_for(b_, i64(0), count, 1, {{a, a_step}, {b_q, i64(b_step)}, {c_q, i64(c_step)}},
                 [&](llvm::Value* t, const std::vector<llvm::Value*>& at) {
      llvm::Value *a_t = at[0], *b_t = at[1], *c_t = at[2];
      // The next panel into L2 at the tile's start (at 2048×2048×1024, paired: +5–11% over
      // nothing, +2–5% over one line per K step down the next panel from inside the K loop).
      if (next_panel) {
        llvm::Value* from = b_.CreateMul(t, i64(16 * kNextPanelLines));
        ir::emit_if(b_, b_.CreateICmpSLT(from, panel_floats),
                    [&] { prefetch_lines(b_.CreateGEP(f32_, next_panel, from), kNextPanelLines); });
      }
      std::vector<llvm::Value*> acc(size_t(s.rows * nv), llvm::ConstantAggregateZero::get(vec_));
      // C fetched before the K loop: by the update its lines have come from wherever they were
      // (main memory, once C outgrows L3 between K blocks). Fetched 64 steps before the update
      // (template v11) they had not: 2048³ ran 10–12% slower, 1024³ and 512×3072×768 9%. The
      // row's every line: a C from malloc is 16-byte aligned and its rows straddle lines, so
      // from the line of its first float one line more than its floats fill. Addressed from
      // that line's start, not the row: the stores' own addresses, shared, were kept alive
      // across the K loop and spilled (6 × 64: 45 stack accesses a tile where 6 without).
      if (s.prefetch_c == 1)
        for (int r = 0; r < s.rows; ++r) {
          llvm::Value* line = b_.CreateIntrinsic(llvm::Intrinsic::ptrmask, {ptr_, b_.getInt64Ty()},
                                                 {f32_ptr(c_t, int64_t(r) * s.ldc), i64(-64)});
          prefetch_vectors(line, ((c_cols + 15) / 16 + 1) * 16 / W_, false, 2);
        }
      // Ahead along the rows: each tile fetches as many lines as it writes, so that the lines
      // of the tiles to its right are covered, each some hundred cycles before its stores.
      if (s.prefetch_c == 2)
        for (int r = 0; r < s.rows; ++r)
          prefetch_vectors(f32_ptr(c_t, int64_t(r) * s.ldc + kCAheadFloats), c_nv, true, 3);
      emit_k_loop(s, a_t, b_t, kb, loads, fetch_n(t), acc);
      if (s.phases > 1) {
        // Each row's groups of lanes summed into its columns of C, stored as a tile of those.
        std::vector<llvm::Value*> sums;
        for (int r = 0; r < s.rows; ++r) {
          const std::vector<llvm::Value*> row(acc.begin() + r * nv, acc.begin() + (r + 1) * nv);
          for (llvm::Value* x : phase_sums(row, s.phases)) sums.push_back(x);
        }
        TileSpec out = s;
        out.nr = c_nv * W_;
        emit_store_tile(out, c_t, is_first, stores, sums);
      } else if (cheap_masks_) {
        emit_store_tile(s, c_t, is_first, stores, acc);
      } else {
        // Whole tiles (all but the N edge) store whole vectors; the edge, emit_store_edge.
        llvm::Value* whole = b_.CreateICmpSGE(cols, i64(s.nr));
        if (!s.pack_b) whole = b_.CreateAnd(whole, b_.CreateICmpSLE(skip_cols, i64(0)));
        const std::vector<llvm::Value*> unmasked(size_t(nv), nullptr);
        ir::emit_if(b_, whole, [&] { emit_store_tile(s, c_t, is_first, unmasked, acc); });
        ir::emit_if(b_, b_.CreateNot(whole), [&] { emit_store_edge(s, c_t, is_first, skip_cols, cols, acc); });
      }
    }, "tiles");
  }, "panels");
}

void GemmEmitter::emit_k_loop(const TileSpec& s, llvm::Value* a, llvm::Value* b, llvm::Value* kb,
                              const std::vector<llvm::Value*>& masks, llvm::Value* fetch_n,
                              std::vector<llvm::Value*>& acc) {
  // Packed A: a(i, p) at a[p·a_panel + i]; unpacked: a[i·lda + p·k_stride]. Packed B: row p
  // at b[p·b_panel], zero-padded to full vectors; unpacked: b[p·k_stride·ldb], whole vectors
  // (the tile at the N edge moves left) unless B is narrower than the tile. Masks in the loop
  // take mask registers (tried with 8 vectors a row: LLVM spilled them and reloaded one before
  // every load).
  // With phases a K step is a group of `phases` values: that many on along A's row, one
  // packed row of B.
  const int64_t a_row = s.pack_a ? 1 : s.lda;
  const int64_t a_k = (s.pack_a ? s.a_panel : s.k_stride) * s.phases;
  const int64_t b_k = s.pack_b ? s.b_panel : s.ldb * s.k_stride;
  const int nv = s.nr / W_, rows = s.rows;
  const llvm::Align b_align(s.pack_b ? size_t(W_) * 4 : 4);

  // One K step at `u` steps past the loop's pointers: every address is a pointer carried by
  // the loop plus a constant, so the instruction selector folds it into the instruction and
  // loop strength reduction finds nothing left to do (it cost 15% of a compile rewriting
  // p·stride products).
  auto step = [&](llvm::Value* a_p, llvm::Value* b_p, int u, bool fetch_a, std::vector<llvm::Value*>& cur) {
    llvm::Value* brow = f32_ptr(b_p, int64_t(u) * b_k);
    if (fetch_a)
      for (int r = 0; r < rows; ++r) prefetch_lines(f32_ptr(a_p, int64_t(u) * a_k + r * a_row + s.prefetch_a), 1);
    if (s.prefetch > 0 || s.prefetch_n > 0) {
      llvm::Value* ahead = s.prefetch > 0 ? f32_ptr(b_p, int64_t(u + s.prefetch) * b_k)
                                          : f32_ptr(brow, fetch_n);
      // B read in place: fetched into L2 the lines arrive sooner (more misses in flight) than
      // into L1 — measured 3–9% for M = 8..16 ahead along K, 1.2x at 8×4096×4096 ahead along
      // the rows. Except ahead along the rows of one row of A, where L1 measured 5–10% faster.
      // Beside a buffer of C (c_buffer), for one use (prefetchnta): 8×4096×4096 on 8 × 32 over
      // K blocks of 8, each run against the best config with C in place in the same process,
      // 1.10x so, 1.06x into L2 (Zen 5).
      const bool into_l2 = !s.pack_b && (s.prefetch > 0 || s.rows > 1);
      prefetch_vectors(ahead, nv, false, s.c_buffer ? 0 : into_l2 ? 2 : 3);
    }
    auto load_b = [&](int v) {
      return load_vector(f32_ptr(brow, int64_t(v) * W_), b_align, masks[size_t(v)]);
    };
    llvm::Value* acol = f32_ptr(a_p, int64_t(u) * a_k);
    // One value to every lane; with phases, the group's values repeated across the vector
    // (vbroadcastsd, vbroadcastf32x4, vbroadcastf32x8; a whole vector at 16).
    auto broadcast_a = [&](int r) -> llvm::Value* {
      llvm::Value* at = f32_ptr(acol, r * a_row);
      if (s.phases == 1) return b_.CreateVectorSplat(unsigned(W_), b_.CreateAlignedLoad(f32_, at, llvm::Align(4)));
      if (s.phases == W_) return b_.CreateAlignedLoad(vec_, at, llvm::Align(4));
      llvm::Type* group = llvm::FixedVectorType::get(f32_, unsigned(s.phases));
      std::vector<int> repeat;
      for (int l = 0; l < W_; ++l) repeat.push_back(l % s.phases);
      return b_.CreateShuffleVector(b_.CreateAlignedLoad(group, at, llvm::Align(4)), repeat);
    };
    auto fma = [&](int r, int v, llvm::Value* av, llvm::Value* bv) {
      auto& x = cur[size_t(r * nv + v)];
      x = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {av, bv, x});
    };
    // Rows first only where a row of B and a broadcast do not fit beside the accumulators.
    if (tile_rows_first(rows, nv, registers_)) {
      std::vector<llvm::Value*> av(static_cast<size_t>(rows));
      for (int r = 0; r < rows; ++r) av[size_t(r)] = broadcast_a(r);
      for (int v = 0; v < nv; ++v) {
        llvm::Value* bv = load_b(v);
        for (int r = 0; r < rows; ++r) fma(r, v, av[size_t(r)], bv);
      }
    } else {
      std::vector<llvm::Value*> bv(static_cast<size_t>(nv));
      for (int v = 0; v < nv; ++v) bv[size_t(v)] = load_b(v);
      for (int r = 0; r < rows; ++r) {
        llvm::Value* av = broadcast_a(r);
        for (int v = 0; v < nv; ++v) fma(r, v, av, bv[size_t(v)]);
      }
    }
  };

  // A's rows ahead (the swapped form's B): a line of each per 16 floats, at the steps whose
  // floats start one, or at every step where a loop's steps are not whole lines; into the
  // level the host reads such rows fastest from (prefetch_lines): a hand-written loop of the
  // swapped 8×4096×4096 tile (Zen 4) read 70–88 GFLOP/s fetching into L2, 50–59 into L1,
  // 61–78 not fetching.
  auto fetches_a = [&](int u, int count) {
    if (s.prefetch_a == 0) return false;
    return count * a_k % 16 != 0 || (u * a_k + 15) / 16 * 16 < (u + 1) * a_k;
  };
  // p in [0, kb) by `unroll` steps, then one by one; the pointers to A's column p and B's row p.
  auto steps = [&](int count) {
    return [&, count](const std::vector<llvm::Value*>& at, std::vector<llvm::Value*>& cur) {
      for (int u = 0; u < count; ++u) step(at[0], at[1], u, fetches_a(u, count), cur);
    };
  };
  const LoopState end = emit_accumulating_loop({i64(0), {a, b}}, kb, int64_t(s.unroll) * s.phases,
                                               {s.unroll * a_k, s.unroll * b_k}, acc, steps(s.unroll), "kmain");
  if (s.tail) emit_accumulating_loop(end, kb, s.phases, {a_k, b_k}, acc, steps(1), "ktail");
}

// Pairs of neighbouring lanes summed, log2(phases) times: each level folds two vectors into
// one (the even lanes of both plus the odd ones), keeping the lanes' order, so that lane j of
// the result holds the sum of group j. A vector without a partner folds with zeros. Not
// lane_sums: its folds sum whole vectors, block-sized steps first, and leave the sums in an
// order of their own; these stop after the groups and keep C^T's columns in order for the
// store. They run once per tile and K block: 8 rows of 2 vectors fold in 48 instructions
// beside 4096 FMAs for a K block of 1024.
std::vector<llvm::Value*> GemmEmitter::phase_sums(std::vector<llvm::Value*> x, int phases) {
  std::vector<int> even, odd;
  for (int l = 0; l < W_; ++l) even.push_back(2 * l), odd.push_back(2 * l + 1);
  llvm::Value* zero = llvm::ConstantAggregateZero::get(vec_);
  for (int level = 1; level < phases; level *= 2) {
    std::vector<llvm::Value*> next;
    for (size_t i = 0; i < x.size(); i += 2) {
      llvm::Value* y = i + 1 < x.size() ? x[i + 1] : zero;
      llvm::Value* sum = b_.CreateFAdd(b_.CreateShuffleVector(x[i], y, even), b_.CreateShuffleVector(x[i], y, odd));
      next.push_back(b_.CreateArithmeticFence(sum, vec_));  // as in lane_sums
    }
    x = std::move(next);
  }
  return x;
}

}  // namespace livetune
