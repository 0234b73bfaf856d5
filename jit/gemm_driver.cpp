// The driver: walks the three cache-block loops in the configured order, packs each block
// where its indices become known, and runs the register tiles over one block (the
// macro-kernel). It is precompiled rather than generated: it runs at most once per column of
// tiles, so baking sizes into it bought nothing measurable, while generating it cost a third
// of every compile.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "jit/kernel.hpp"

namespace livetune {
namespace {

enum Dim { M = 0, N = 1, K = 2 };

struct Block {
  int64_t start = -1;  // -1: not inside this dimension's loop yet
  int64_t size = 0;
  bool known() const { return start >= 0; }
};

class Walk {
 public:
  // record: where given, the calls of tiles and epilogues are listed there (offsets from the
  // args' pointers) instead of made.
  Walk(const Kernel& k, const GemmArgs& args, std::vector<PlannedCall>* record = nullptr)
      : k_(k), w_(k.computed), g_(k.gemm), nr_(k.columns_per_tile), args_(args), record_(record) {
    static constexpr Dim kOrders[][3] = {{N, K, M}, {N, M, K}, {K, N, M}, {K, M, N}, {M, K, N}, {M, N, K}};
    std::copy(std::begin(kOrders[int(g_.order)]), std::end(kOrders[int(g_.order)]), order_);
    const int64_t rows = args.m > 0 ? args.m : w_.m;
    const int64_t cols = args.n > 0 ? args.n : w_.n;
    lo_[M] = 0, hi_[M] = rows, lo_[N] = 0, hi_[N] = cols, lo_[K] = 0, hi_[K] = w_.k;
    if (g_.split == Split::m) {
      lo_[M] = args.begin * g_.mr, hi_[M] = std::min(args.end * g_.mr, rows);
    } else {
      lo_[N] = args.begin * nr_, hi_[N] = std::min(args.end * nr_, cols);
    }
    // The range that ends at N leaves its last columns to the dot edge, where there is one.
    if (k.dot_edge && hi_[N] == w_.n) dot_edge_ = k.dot_edge_columns, hi_[N] -= dot_edge_;
    step_[M] = g_.mc, step_[N] = g_.nc, step_[K] = g_.kc;
    a_pack_ = args.workspace;
    b_pack_ = args.workspace + k.packed_a_floats;
    padded_n_ = (w_.n + nr_ - 1) / nr_ * nr_;
    // B read in place: a tile at the N edge moves left to end at the last column and leaves
    // the columns of the tile before it alone, so that its loads of B stay whole.
    edge_moves_left_ = k.edge_moves_left;
    if (g_.c_buf) c_buffer_ = args.workspace + k.c_buffer_offset;
    shift_ = aligned_grid_shift();
  }

  void run() {
    if (hi_[N] > lo_[N]) walk();  // else the dot edge has all of N (a narrow B)
    if (dot_edge_ > 0) dot_edge();
    if (c_buffer_) add_c_buffer();
  }

  // Whether the tiles' grid depends on B's address (aligned_grid_shift). Not with the buffer of
  // C, which holds whole tiles from the range's first column.
  bool grid_may_shift() const {
    constexpr int64_t kMinTiles = 16;
    return edge_moves_left_ && !c_buffer_ && w_.ldb % 16 == 0 && hi_[N] - lo_[N] >= kMinTiles * nr_;
  }

  void walk() {
    // One block in every dimension (small GEMMs): the loop nest has nothing to walk, and
    // walking it cost a 4x4x4 call more than its tile did.
    const bool some = hi_[M] > lo_[M] && hi_[N] > lo_[N];
    if (some && hi_[M] - lo_[M] <= step_[M] && hi_[N] - lo_[N] <= step_[N] && w_.k <= step_[K] && shift_ == 0) {
      for (const Dim d : {M, N, K}) blk_[d] = Block{lo_[d], hi_[d] - lo_[d]};
      level(3);
      return;
    }
    level(0);
  }

  // The last dot_edge_ columns of the range's rows, all of K at once, one row after another.
  // B's columns are copied into runs along K first by the column_runs piece (B transposed:
  // its rows are those runs).
  void dot_edge() {
    const int64_t rows = hi_[M] - lo_[M], col = hi_[N];
    if (rows <= 0) return;
    const float* a = args_.a + lo_[M] * w_.lda;
    float* c = c_at(lo_[M], col);
    if (w_.trans_b) {
      call(k_.dot_edge, a, args_.b + col * w_.ldb, c, w_.k, 1, dot_edge_, 0, rows, 1);
    } else if (record_) {
      record_->push_back({.b = col, .c = k_.dot_edge_offset, .column_runs = true});
      record_->push_back({.tile = k_.dot_edge, .a = a - args_.a, .b = k_.dot_edge_offset, .c = c - args_.c,
                          .kb = w_.k, .first = 1, .cols = dot_edge_, .count = rows, .panels = 1,
                          .b_in_workspace = true});
    } else {
      float* copy = args_.workspace + k_.dot_edge_offset;
      k_.column_runs(args_.b + col, copy);
      k_.dot_edge(a, copy, c, w_.k, 1, dot_edge_, 0, rows, 1);
    }
    if (k_.epilogue) epilogue(c, col, rows, dot_edge_);
  }

  void level(int depth) {
    const Block &m = blk_[M], &n = blk_[N], &k = blk_[K];
    if (k_.pack_b && !args_.b_packed && !b_packed_ && n.known() && k.known()) {
      const float* src = w_.trans_b ? args_.b + n.start * w_.ldb + k.start : args_.b + k.start * w_.ldb + n.start;
      k_.pack_b(src, b_pack_, k.size, n.size);
      b_packed_ = true;
    }
    if (k_.pack_a && !a_packed_ && m.known() && k.known()) {
      k_.pack_a(args_.a + m.start * w_.lda + k.start, a_pack_, m.size, k.size);
      a_packed_ = true;
    }
    if (depth == 3) {
      macro_kernel();
      return;
    }
    const Dim d = order_[depth];
    for (int64_t i = lo_[d], next; i < hi_[d]; i = next) {
      next = d == N && i == lo_[N] && shift_ > 0 ? i + shift_ : std::min(i + step_[d], hi_[d]);
      blk_[d] = Block{i, next - i};
      level(depth + 1);
      blk_[d] = Block{};
      if (d == N || d == K) b_packed_ = false;
      if (d == M || d == K) a_packed_ = false;
    }
  }

 private:
  // B read in place from a buffer that is not cache-line aligned (a std::vector's, malloc's):
  // each row of a tile touches one line more than it has vectors, and the prefetch along K
  // fetches only as many lines as vectors — 8×4096×4096 ran at 60 instead of 90 GFLOP/s. When
  // all rows share the misalignment, the tiles start `shift` columns in, where the lines
  // start, after a first block of one tile that writes those columns alone. That tile costs
  // one more per row band and K block: worth it on wide B only. With the prefetch along the
  // rows too: 1×4096×4096 and 8×4096×4096 measured 6–13% faster with the shift.
  int64_t aligned_grid_shift() const {
    const auto addr = reinterpret_cast<uintptr_t>(args_.b);
    if (!grid_may_shift() || addr % 4 != 0) return 0;
    return int64_t(64 - addr % 64) % 64 / 4;
  }

  // The register tiles of one block, in the configured order.
  void macro_kernel() {
    const auto [ic, mb] = blk_[M];
    const auto [jc, nb] = blk_[N];
    const auto [pc, kb] = blk_[K];
    const int64_t mr = g_.mr, nr = nr_;
    // Tiles of mr rows, and at the end of M one of the rows left (the edge tile). Down a
    // column, one call runs the whole tiles (a call per tile cost 2% at 64³), in groups whose
    // C stays in L1 for the epilogue where one follows.
    constexpr int64_t kEpilogueFloats = 4096;
    if (k_.tile_sweeps_n) {
      // One band of rows: calls run whole tiles side by side (the rest as below).
      const int64_t whole = nb / nr;
      const int64_t group = k_.epilogue && pc + kb == w_.k ? std::max<int64_t>(1, kEpilogueFloats / (mr * nr)) : whole;
      for (int64_t t = 0; t < whole; t += group) run_tile_row(ic, jc + t * nr, std::min(group, whole - t));
      if (nb % nr) run_tile(ic, 0, mr, jc + whole * nr, nb % nr, b_panel(pc, kb, jc + whole * nr, whole * nr), 1);
    } else if (g_.tiles == TileOrder::nm) {
      const Bands bands = bands_of(mb);
      const bool epilogue = k_.epilogue && pc + kb == w_.k;
      // Without an epilogue, the whole panels in one call per band of tiles: the edge bands then
      // read the block of B after all of the others, so only where that block is small
      // (from L2, not L3).
      constexpr int64_t kEdgeSweepFloats = 32 * 1024;
      int64_t jr = 0;
      if (!epilogue && nb / nr > 1 && (bands.whole_only() || kb * nb <= kEdgeSweepFloats)) {
        const int64_t panels = nb / nr;
        const float* b_tile = b_panel(pc, kb, jc, 0);
        for (const Band& band : bands.list)
          if (band.count > 0) run_tile(ic + band.ir, band.ir, band.rows, jc, nr, b_tile, band.count, panels);
        jr = panels * nr;
      }
      for (; jr < nb; jr += nr) {
        const int64_t col = jc + jr, cols = std::min(nr, nb - jr);
        const float* b_tile = b_panel(pc, kb, col, jr);
        for (const Band& band : bands.list) {
          if (band.count == 0) continue;
          const int64_t group = epilogue ? std::max<int64_t>(1, kEpilogueFloats / (band.rows * nr)) : band.count;
          for (int64_t t = 0; t < band.count; t += group)
            run_tile(ic + band.ir + t * band.rows, band.ir + t * band.rows, band.rows, col, cols, b_tile,
                     std::min(group, band.count - t));
        }
      }
    } else {
      // Across N a row of tiles at a time, C written row band after row band: one call runs
      // the whole panels, a second the N edge (a call per tile cost more than a tile's FMAs on
      // short K).
      const int64_t whole = nb / nr;
      for (const Band& band : bands_of(mb).list)
        for (int64_t t = 0; t < band.count; ++t) {
          const int64_t ir = band.ir + t * band.rows;
          if (whole > 0) run_tile(ic + ir, ir, band.rows, jc, nr, b_panel(pc, kb, jc, 0), 1, whole);
          if (nb % nr)
            run_tile(ic + ir, ir, band.rows, jc + whole * nr, nb % nr, b_panel(pc, kb, jc + whole * nr, whole * nr), 1);
        }
    }
  }

  // The tiles down a block of mb rows, in runs of one height from row `ir` of the block: whole
  // tiles of mr rows, then (at the end of M) its remainder's edge tile, or where a short
  // remainder merges with the tiles above it, tiles of balanced_rows rows (balanced_edge_rows).
  struct Band {
    int64_t ir = 0, rows = 0, count = 0;
  };
  struct Bands {
    std::array<Band, 3> list;
    bool whole_only() const { return list[1].count == 0 && list[2].count == 0; }
  };
  Bands bands_of(int64_t mb) const {
    const int64_t mr = g_.mr, h = k_.balanced_rows;
    int64_t whole = mb / mr, rest = mb % mr, balanced = 0;
    if (h > 0 && rest > 0 && rest < h && whole >= h - rest) whole -= h - rest, balanced = mr - rest, rest = 0;
    Bands b;
    b.list[0] = Band{0, mr, whole};
    b.list[1] = Band{whole * mr, h, balanced};
    b.list[2] = Band{whole * mr + balanced * h, rest, rest > 0 ? 1 : 0};
    return b;
  }

  const float* b_panel(int64_t pc, int64_t kb, int64_t col, int64_t jr) const {
    if (g_.pack_b) return args_.b_packed ? args_.b_packed + pc * padded_n_ + col * kb : b_pack_ + jr * kb;
    return gemm_dot_form(w_, g_) ? args_.b + col * w_.ldb + pc : args_.b + k_origin(pc) * w_.ldb + col;
  }

  // `count` tiles of `rows` rows (mr, or fewer in the edge tile, then one) from `row` (ir
  // within the block) and `cols` columns from `col`. On B read in place, a tile that would run
  // past the end of the columns moves left to end at the last one and leaves the columns
  // before `col` alone.
  void run_tile(int64_t row, int64_t ir, int64_t rows, int64_t col, int64_t cols, const float* b_tile,
                int64_t count, int64_t panels = 1) {
    const auto [pc, kb] = blk_[K];
    const float* a_tile = this->a_tile(row, ir, rows);
    // Columns short of a tile that the N-edge tile covers (the last columns; also, ending a
    // thread's range or the aligned grid's first block, wider ones, on the main tile) in full
    // rows on the N-edge tile, where there is one (the last rows on their own edge tile, as
    // wide as the main one).
    const bool n_edge = rows == g_.mr && cols <= k_.n_edge_columns && k_.n_edge_tile;
    const int64_t width = n_edge ? k_.n_edge_columns : nr_;
    const int64_t left = edge_moves_left_ && cols < width && col + cols == hi_[N] ? width - cols : 0;
    if (rows == g_.mr || k_.edge_tiles[size_t(rows)]) {
      const TileFn tile = n_edge ? k_.n_edge_tile : rows == g_.mr ? k_.tile : k_.edge_tiles[size_t(rows)];
      call(tile, a_tile, b_tile - left, c_at(row, col - left), kb, pc == 0, cols + left, left, count, panels);
    } else {
      // A remainder of a bucket of M without a tile of its own: the tiles of its binary
      // digits, one below the other.
      const int64_t a_row = g_.pack_a ? 1 : w_.lda;
      for (int64_t part = int64_t(1) << 3, done = 0; part > 0; part >>= 1) {
        if (!(rows & part)) continue;
        call(k_.edge_tiles[size_t(part)], a_tile + done * a_row, b_tile - left, c_at(row + done, col - left), kb,
             pc == 0, cols + left, left, 1, panels);
        done += part;
      }
    }
    if (k_.epilogue && pc + kb == w_.k) epilogue(c_at(row, col), col, rows * count, (panels - 1) * nr_ + cols);
  }

  // The A rows of a tile of `rows` rows from `row` (ir within the block). Packing moved a
  // short last A panel up to end at the last row: the edge tile's rows are the last of it.
  const float* a_tile(int64_t row, int64_t ir, int64_t rows) const {
    const int64_t pc = blk_[K].start, kb = blk_[K].size;
    return g_.pack_a ? a_pack_ + ir * kb + (g_.mr - rows) : args_.a + row * w_.lda + k_origin(pc);
  }

  // The row of B (value along A's rows) where the K block from pc starts: with k_spread, block
  // j takes row j of each of kc segments, the tile steps K / kc rows from one to the next.
  int64_t k_origin(int64_t pc) const { return g_.k_spread ? pc / g_.kc : pc; }

  // `count` whole tiles of the band from `row`, side by side from column `col` (B read in place).
  void run_tile_row(int64_t row, int64_t col, int64_t count) {
    const auto [pc, kb] = blk_[K];
    float* c = c_buffer_ ? c_buffer_ + (col - lo_[N]) * g_.mr : c_at(row, col);
    call(k_.tile, a_tile(row, 0, g_.mr), args_.b + k_origin(pc) * w_.ldb + col, c, kb, pc == 0, nr_, 0, count, 1);
    if (k_.epilogue && pc + kb == w_.k && !c_buffer_) epilogue(c_at(row, col), col, g_.mr, nr_ * count);
  }

  // The buffer's partial sums (c_buf) into C: tile after tile, each mr rows of nr floats; beta
  // and the epilogue applied here, once the last K block is in.
  void add_c_buffer() {
    const int64_t rows = hi_[M] - lo_[M], cols = hi_[N] - lo_[N];
    if (rows <= 0 || cols <= 0) return;
    const float beta = w_.beta;
    for (int64_t t = 0; t < cols; t += nr_)
      for (int64_t r = 0; r < rows; ++r) {
        const float* from = c_buffer_ + t * g_.mr + r * nr_;
        float* to = c_at(lo_[M] + r, lo_[N] + t);
        if (beta == 0.0f)
          std::copy(from, from + nr_, to);
        else
          for (int64_t j = 0; j < nr_; ++j) to[j] = from[j] + beta * to[j];
      }
    if (k_.epilogue) epilogue(c_at(lo_[M], lo_[N]), lo_[N], rows, cols);
  }

  // C's value (row, col); args.c holds the rows from args.c_first_row on.
  float* c_at(int64_t row, int64_t col) const { return args_.c + (row - args_.c_first_row) * w_.ldc + col; }

  void epilogue(float* c_tile, int64_t col, int64_t rows, int64_t cols) {
    if (record_)
      record_->push_back({.c = c_tile - args_.c, .cols = cols, .col = col, .rows = rows});
    else
      k_.epilogue(c_tile, args_.bias ? args_.bias + col : nullptr, rows, cols);
  }

  void call(TileFn fn, const float* a, const float* b, float* c, int64_t kb, bool first, int64_t cols, int64_t skip,
            int64_t count, int64_t panels) {
    if (record_)
      record_->push_back({.tile = fn, .a = a - args_.a, .b = b - args_.b, .c = c - args_.c, .kb = kb, .first = first,
                          .cols = cols, .skip = skip, .count = count, .panels = panels});
    else
      fn(a, b, c, kb, first, cols, skip, count, panels);
  }

  const Kernel& k_;
  const Workload& w_;
  const GemmConfig& g_;
  const int64_t nr_;  // columns of C per tile (Kernel::columns_per_tile)
  const GemmArgs& args_;
  Dim order_[3];
  int64_t lo_[3], hi_[3], step_[3];
  Block blk_[3];
  float* a_pack_;
  float* b_pack_;
  int64_t padded_n_;  // N rounded up to whole nr panels: the row length of a whole packed B
  bool a_packed_ = false, b_packed_ = false;
  bool edge_moves_left_;
  int64_t shift_;  // columns before the first tile of the aligned grid (aligned_grid_shift)
  int64_t dot_edge_ = 0;  // the last columns of N, left to the dot edge
  float* c_buffer_ = nullptr;  // the partial sums of the range's tiles (c_buf), else null
  std::vector<PlannedCall>* record_;
};

// B packed whole (pack_whole_b), of its first n columns, in the layout of all of them: the
// swapped form packs a call's rows of A, fewer than a bucket's largest M.
void pack_whole(const Kernel& k, const float* b, float* dst, int64_t n, int64_t part, int64_t parts) {
  const Workload& w = k.computed;
  const int64_t nr = k.columns_per_tile, kc = k.gemm.kc;
  const int64_t panels = (w.n + nr - 1) / nr, used = (n + nr - 1) / nr, blocks = (w.k + kc - 1) / kc;
  // Share `part` of the (K block, panel) pairs, in runs of panels within one K block, each
  // packed as pack_b packs a block of B.
  const int64_t begin = blocks * used * part / parts, end = blocks * used * (part + 1) / parts;
  for (int64_t unit = begin; unit < end;) {
    const int64_t block = unit / used, first = unit % used;
    const int64_t last = std::min(used, first + (end - unit));
    const int64_t pc = block * kc, kb = std::min(kc, w.k - pc), col = first * nr;
    const float* src = w.trans_b ? b + col * w.ldb + pc : b + pc * w.ldb + col;
    k.pack_b(src, dst + pc * panels * nr + col * kb, kb, std::min(n, last * nr) - col);
    unit += last - first;
  }
}

// Interleaved tiles (TileOrder::interleaved) over rows [lo, end) of C^T, whole groups: in each,
// tile i has rows i, i + 8, ..., its rows in the tile 8 apart (tile_spec), so that the rows
// tile i streams from memory run on into tile i + 1's: where a tile's rows lie side by side,
// the hardware's fetch of each row runs on into a row another stream has read, and the next
// tile's rows start cold (Zen 5, 8×4096×4096ᵀ: 1.05–1.13x, policy/swap_rule.cpp).
void run_interleaved(const Kernel& k, const float* b, const float* packed, float* rows, int64_t lo, int64_t end,
                     int64_t columns) {
  const Workload& w = k.computed;
  const int64_t group = tile_rows_step(k.gemm);
  for (int64_t first = lo; first < end; first += group)
    for (int64_t i = 0; i < kInterleavedRows; ++i) {
      const int64_t row = first + i;
      k.tile(b + row * w.lda, packed, rows + (row - lo) * w.ldc, w.k, 1, columns, 0, 1, 1);
    }
}

// The swapped form (GemmConfig::swap): A packed whole as the computed product's B, then this
// range's rows of C^T an M block at a time, computed into the workspace and written into C.
void run_swapped(const Kernel& k, const GemmArgs& args) {
  const Workload& w = k.computed;
  const int64_t m = args.m > 0 ? args.m : k.workload.m;  // the computed product's N
  float* packed = args.workspace;
  float* buffer = args.workspace + k.swap_rows_offset;
  pack_whole(k, args.a, packed, m, 0, 1);
  const int64_t mr = k.gemm.mr, step = tile_rows_step(k.gemm), block = k.gemm.mc;
  const int64_t hi = std::min(args.end * step, w.m);
  for (int64_t lo = args.begin * step; lo < hi; lo += block) {
    const int64_t end = std::min(lo + block, hi);
    if (k.gemm.tiles == TileOrder::interleaved) {
      run_interleaved(k, args.b, packed, buffer, lo, end, m);
    } else {
      GemmArgs part{args.b, args.a, buffer, nullptr, args.workspace, lo / mr, (end + mr - 1) / mr, packed, 0, m, lo};
      Walk(k, part).run();
    }
    k.transpose_out(buffer, args.c + lo, args.bias ? args.bias + lo : nullptr, m, end - lo);
  }
}

}  // namespace

std::vector<PlannedCall> plan_calls(const Kernel& k) {
  // Past a few calls the driver's cost is lost in theirs; past a small operand, in its tiles.
  constexpr size_t kMostCalls = 16;
  constexpr int64_t kLargestOperand = int64_t(1) << 18;
  const Workload& w = k.computed;
  if (k.gemm.swap || k.gemm.c_buf || k.pack_a || k.pack_b) return {};
  const int64_t a_floats = (w.m - 1) * w.lda + w.k;
  const int64_t b_floats = w.trans_b ? (w.n - 1) * w.ldb + w.k : (w.k - 1) * w.ldb + w.n;
  const int64_t c_floats = (w.m - 1) * w.ldc + w.n;
  const int64_t floats = std::max({a_floats, b_floats, c_floats, w.n});
  if (floats > kLargestOperand) return {};
  // The walk's pointers, taken apart into offsets, all lie in one buffer as long as the largest
  // operand; nothing is read or written through them.
  const std::unique_ptr<float[]> base(new float[size_t(floats)]);
  const GemmArgs whole{base.get(), base.get(), base.get(), w.bias ? base.get() : nullptr, nullptr, 0, k.tiles};
  std::vector<PlannedCall> plan;
  Walk walk(k, whole, &plan);
  if (walk.grid_may_shift()) return {};
  walk.run();
  if (plan.size() > kMostCalls) return {};
  return plan;
}

void Kernel::run(const GemmArgs& args) const {
  if (whole_call) {
    // M fixed and one threading tile: a call is the whole call or none.
    if (args.begin < args.end) whole_call(args.a, args.b, args.c, args.bias);
  } else if (!plan.empty() && args.begin == 0 && args.end == tiles && (args.m == 0 || args.m == workload.m)) {
    for (const PlannedCall& p : plan) {
      if (p.column_runs)
        column_runs(args.b + p.b, args.workspace + p.c);
      else if (p.tile)
        p.tile(args.a + p.a, (p.b_in_workspace ? args.workspace : args.b) + p.b, args.c + p.c, p.kb, p.first, p.cols,
               p.skip, p.count, p.panels);
      else
        epilogue(args.c + p.c, args.bias ? args.bias + p.col : nullptr, p.rows, p.cols);
    }
  } else if (gemm.swap) {
    run_swapped(*this, args);
  } else {
    Walk(*this, args).run();
  }
}

std::string packed_b_layout_key(const Workload& w, const GemmConfig& g) {
  return "k=" + std::to_string(w.k) + " n=" + std::to_string(w.n) + " ldb=" + std::to_string(w.ldb) +
         " trans_b=" + std::to_string(w.trans_b) + " nr=" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc);
}

void pack_whole_b(const Kernel& k, const float* b, float* dst, int64_t part, int64_t parts) {
  pack_whole(k, b, dst, k.computed.n, part, parts);
}

}  // namespace livetune
