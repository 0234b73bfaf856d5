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

namespace {

// The shuffles of one level of the lane-sum tree: vectors x and y, each holding sums of
// 2·block lanes, become low + high, holding x's sums of block lanes and y's. Wider blocks move
// whole 128-bit blocks (vshuff64x2, vperm2f128); the last two levels stay inside them
// (unpck*pd, unpck*ps), one short instruction each where masks crossing blocks would need a
// two-source permute. (Compile cost measured the same either way.)
struct Fold {
  std::vector<int> low, high;  // lanes of x (0..W-1) and y (W..2W-1)
};

std::vector<Fold> fold_levels(int w) {
  std::vector<Fold> levels;
  for (int block = w / 2; block >= 4; block /= 2) {
    Fold f;
    for (int from = 0; from < 2; ++from)
      for (int group = 0; group < w; group += 2 * block)
        for (int i = 0; i < block; ++i) f.low.push_back(from * w + group + i), f.high.push_back(from * w + group + block + i);
    levels.push_back(f);
  }
  Fold pairs, singles;
  for (int q = 0; q < w; q += 4) {
    for (int i : {q, q + 1, w + q, w + q + 1}) pairs.low.push_back(i), pairs.high.push_back(i + 2);
    for (int i : {q, w + q, q + 2, w + q + 2}) singles.low.push_back(i), singles.high.push_back(i + 1);
  }
  levels.push_back(pairs);
  levels.push_back(singles);
  return levels;
}

}  // namespace

// Lane i mod W of vector i / W: the sum of the lanes of x[i]. Per W vectors, a tree of W − 1
// adds of two shuffles of a pair each (one instruction each): each level folds a pair of
// vectors into one holding the sums of both. The folds leave the sums in an order of their
// own, so each x goes in at the place that ends at its lane. A reduction per vector took ~8
// instructions and a store and load through the stack. A fence after each level keeps the
// instruction selector from walking the whole tree (see transpose).
std::vector<llvm::Value*> GemmEmitter::lane_sums(const std::vector<llvm::Value*>& x) {
  const std::vector<Fold> levels = fold_levels(W_);
  // Which input vector's sum each lane holds after the folds, traced once.
  std::vector<std::vector<int>> holds(static_cast<size_t>(W_));
  for (int k = 0; k < W_; ++k) holds[size_t(k)].assign(size_t(W_), k);
  for (const Fold& f : levels) {
    std::vector<std::vector<int>> next;
    for (size_t k = 0; k < holds.size(); k += 2) {
      std::vector<int> lanes;
      for (int i : f.low) lanes.push_back(i < W_ ? holds[k][size_t(i)] : holds[k + 1][size_t(i - W_)]);
      next.push_back(lanes);
    }
    holds = std::move(next);
  }
  std::vector<llvm::Value*> out;
  for (size_t first = 0; first < x.size(); first += size_t(W_)) {
    std::vector<llvm::Value*> v(size_t(W_), llvm::PoisonValue::get(vec_));
    for (size_t lane = 0; lane < size_t(W_) && first + lane < x.size(); ++lane) v[size_t(holds[0][lane])] = x[first + lane];
    for (const Fold& f : levels) {
      std::vector<llvm::Value*> next;
      for (size_t k = 0; k < v.size(); k += 2) {
        if (llvm::isa<llvm::PoisonValue>(v[k]) && llvm::isa<llvm::PoisonValue>(v[k + 1])) {
          next.push_back(v[k]);  // padding
          continue;
        }
        llvm::Value* sum = b_.CreateFAdd(b_.CreateShuffleVector(v[k], v[k + 1], f.low),
                                         b_.CreateShuffleVector(v[k], v[k + 1], f.high));
        next.push_back(b_.CreateArithmeticFence(sum, vec_));
      }
      v = std::move(next);
    }
    out.push_back(v[0]);
  }
  return out;
}

// skip_cols is not read: a dot tile never moves left (it computes any number of columns).
void GemmEmitter::emit_dot_tile_body(const TileSpec& s, const TileArgs& in) {
  llvm::Value *a = in.a, *b = in.b, *c = in.c, *kb = s.k > 0 ? i64(s.k) : in.kb, *first = in.first, *cols = in.cols,
              *count = in.count, *panels = in.panels;
  llvm::Value* is_first = s.one_k_block ? b_.getTrue() : b_.CreateICmpNE(first, i64(0));
  // The K loop's whole vectors, then one masked step of the kb mod W left (no lanes when none).
  llvm::Value* whole_k = b_.CreateAnd(kb, i64(-int64_t(W_)));
  llvm::Value* tail_mask = lane_mask(b_.CreateSub(kb, whole_k));

  const int wide = std::min(dot_columns(s.rows, registers_), s.nr);
  // s.rows × n values of C from A's rows at `a_t`, B's rows (C's columns) at `b_t`, into `c_t`.
  // With `rows_left` (the dot edge), rows past it repeat the last one: they load and store the
  // same values as it, all loads of C before the stores.
  auto emit_block = [&](int n, llvm::Value* a_t, llvm::Value* b_t, llvm::Value* c_t, llvm::Value* rows_left) {
    std::vector<llvm::Value*> a_row, c_row;  // each row's offset from a_t and c_t, in floats
    for (int r = 0; r < s.rows; ++r) {
      llvm::Value* row = rows_left && r > 0 ? ir::smin(b_, i64(r), b_.CreateSub(rows_left, i64(1))) : i64(r);
      a_row.push_back(b_.CreateMul(row, i64(s.lda)));
      c_row.push_back(b_.CreateMul(row, i64(s.ldc)));
    }
    std::vector<llvm::Value*> acc(size_t(s.rows * n), llvm::ConstantAggregateZero::get(vec_));
    auto step = [&](llvm::Value* a_p, llvm::Value* b_p, int u, llvm::Value* mask, std::vector<llvm::Value*>& cur) {
      std::vector<llvm::Value*> av;
      for (int r = 0; r < s.rows; ++r)
        av.push_back(load_vector(f32_ptr(a_p, b_.CreateAdd(a_row[size_t(r)], i64(int64_t(u) * W_))), llvm::Align(4), mask));
      for (int j = 0; j < n; ++j) {
        llvm::Value* row = f32_ptr(b_p, int64_t(j) * s.ldb + int64_t(u) * W_);
        // The next group's rows, prefetch_n floats ahead of this step (prefetch_lines): a
        // group's rows start cold, and the hardware did not fetch them ahead (8×4096×4096: 35
        // -> 41–49 GFLOP/s, 1×4096×4096: 9 -> 13–14). Past B's end, harmless.
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
    // Row r's n sums are lanes r·n .. r·n + n − 1 of the lane sums, stored a run per vector.
    const std::vector<llvm::Value*> sums = lane_sums(acc);
    const bool write_only = s.one_k_block && s.beta == 0.0f;
    std::vector<std::pair<llvm::Value*, llvm::Value*>> stores;  // (where, what)
    for (int r = 0; r < s.rows; ++r) {
      for (int j = 0; j < n;) {
        const int flat = r * n + j, lane = flat % W_;
        const int run = std::min(n - j, W_ - lane);
        std::vector<int> lanes(static_cast<size_t>(run));
        for (int i = 0; i < run; ++i) lanes[size_t(i)] = lane + i;
        llvm::Value* sum = b_.CreateShuffleVector(sums[size_t(flat / W_)], lanes);
        llvm::Value* at = f32_ptr(c_t, b_.CreateAdd(c_row[size_t(r)], i64(j)));
        if (!write_only) {
          llvm::Value* old = b_.CreateAlignedLoad(sum->getType(), at, llvm::Align(4));
          llvm::Value* on_first =
              s.beta == 0.0f
                  ? sum
                  : b_.CreateFAdd(b_.CreateFMul(old, llvm::ConstantFP::get(sum->getType(), s.beta)), sum);
          sum = b_.CreateSelect(is_first, on_first, b_.CreateFAdd(old, sum));
        }
        stores.emplace_back(at, sum);
        j += run;
      }
    }
    for (const auto& [at, sum] : stores) b_.CreateAlignedStore(sum, at, llvm::Align(4));
  };

  // Down the tiles below each other inside a group of columns: the group's rows of B come
  // from memory once and from L1 for the other tiles (8×4096×4096 in two tiles of 4 rows:
  // 47.8 GFLOP/s with a tile's columns all before the next tile's, 49–55 so; two builds, not
  // paired). The dot edge's `count` counts rows: its last tile repeats its last row.
  auto down_the_tiles = [&](int n, llvm::Value* b_g, llvm::Value* c_g) {
    llvm::Value* end = s.counts_rows ? count : b_.CreateMul(count, i64(s.rows));
    ir::emit_for(b_, i64(0), end, s.rows, {{a, i64(int64_t(s.rows) * s.lda)}, {c_g, i64(int64_t(s.rows) * s.ldc)}},
                 [&](llvm::Value* row, const std::vector<llvm::Value*>& at) {
                   emit_block(n, at[0], b_g, at[1], s.counts_rows ? b_.CreateSub(count, row) : nullptr);
                 }, "tiles");
  };
  ir::emit_for(b_, i64(0), panels, 1, {{b, i64(int64_t(s.nr) * s.ldb)}, {c, i64(s.nr)}},
               [&](llvm::Value*, const std::vector<llvm::Value*>& panel) {
    llvm::Value* grouped = b_.CreateMul(b_.CreateUDiv(cols, i64(wide)), i64(wide));
    ir::emit_for(b_, i64(0), grouped, wide, {{panel[0], i64(int64_t(wide) * s.ldb)}, {panel[1], i64(wide)}},
                 [&](llvm::Value*, const std::vector<llvm::Value*>& g) { down_the_tiles(wide, g[0], g[1]); },
                 "dot.groups");
    // The dot edge's columns are always its nr, one whole group.
    if (wide > 1 && !s.counts_rows) {
      const std::vector<ir::Walk> rest = {{f32_ptr(panel[0], b_.CreateMul(grouped, i64(s.ldb))), i64(s.ldb)},
                                          {f32_ptr(panel[1], grouped), i64(1)}};
      ir::emit_for(b_, grouped, cols, 1, rest,
                   [&](llvm::Value*, const std::vector<llvm::Value*>& g) { down_the_tiles(1, g[0], g[1]); },
                   "dot.columns");
    }
  }, "panels");
}

}  // namespace livetune
