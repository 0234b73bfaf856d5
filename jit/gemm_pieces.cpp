#include "jit/gemm_pieces.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace livetune {
namespace {

// An edge of a few rows or columns in many: its prefetches are too small a share to show (the
// best configs of nine odd shapes, paired with and without them: the same ratios to OpenBLAS),
// and an edge tile without them is shared by the variants that differ only there (random:300,
// distinct edge tiles: 777×555×333 202 → 96, 1021³ 211 → 77).
bool edge_is_minor(int64_t edge, int64_t whole) { return edge * 16 <= whole; }

}  // namespace

std::string TileSpec::key() const {
  std::ostringstream s;
  s << "tile vec=" << vec << " rows=" << rows << " a_panel=" << a_panel << " b_panel=" << b_panel << " nr=" << nr
    << " unroll=" << unroll << " prefetch=" << prefetch << " prefetch_n=" << prefetch_n << " prefetch_c=" << prefetch_c
    << " prefetch_a=" << prefetch_a << " c_buffer=" << c_buffer
    << " pack_a=" << pack_a << " pack_b=" << pack_b << " tail=" << tail << " one_k_block=" << one_k_block
    << " masked_loads=" << masked_loads << " sweep_n=" << sweep_n << " fetch_wraps=" << fetch_wraps
    << " next_panel=" << next_panel << " dot=" << dot
    << " counts_rows=" << counts_rows << " k=" << k << " phases=" << phases << " k_stride=" << k_stride
    << " lda=" << lda << " ldb=" << ldb << " ldc=" << ldc << " beta=" << beta;
  return s.str();
}

std::string PackASpec::key() const { return "pack_a mr=" + std::to_string(mr) + " lda=" + std::to_string(lda); }

std::string PackBSpec::key() const {
  return "pack_b vec=" + std::to_string(vec) + " nr=" + std::to_string(nr) + " ldb=" + std::to_string(ldb) +
         " trans_b=" + std::to_string(trans_b) + " phases=" + std::to_string(phases);
}

std::string ColumnRunsSpec::key() const {
  return "column_runs columns=" + std::to_string(columns) + " k=" + std::to_string(k) + " ldb=" + std::to_string(ldb);
}

std::string EpilogueSpec::key() const {
  return "epilogue ldc=" + std::to_string(ldc) + " bias=" + std::to_string(bias) + " act=" +
         std::string(activation_name(act));
}

std::string TransposeOutSpec::key() const {
  std::ostringstream s;
  s << "transpose_out ldt=" << ldt << " ldc=" << ldc << " beta=" << beta << " bias=" << bias
    << " act=" << activation_name(act);
  return s.str();
}

std::string WholeCallSpec::key() const {
  std::ostringstream s;
  s << "whole_call\n";
  for (const TileSpec& t : tiles) s << t.key() << "\n";
  s << epilogue.key() << "\n";
  for (size_t i = 0; i < calls.size(); ++i) {
    const PlannedCall& p = calls[i];
    s << tile_of[i] << ' ' << p.a << ' ' << p.b << ' ' << p.c << ' ' << p.kb << ' ' << p.first << ' ' << p.cols << ' '
      << p.skip << ' ' << p.count << ' ' << p.panels << ' ' << p.col << ' ' << p.rows << "\n";
  }
  return s.str();
}

TileSpec tile_spec(const Workload& w, const GemmConfig& c) {
  TileSpec t;
  t.vec = c.vec, t.rows = c.mr, t.nr = c.nr, t.unroll = c.unroll;
  t.prefetch = c.prefetch, t.prefetch_n = c.prefetch_n, t.prefetch_c = c.prefetch_c;
  if (c.swap) t.prefetch_a = t.prefetch_n, t.prefetch_n = 0;  // the caller's B is the product's A
  t.pack_a = c.pack_a, t.pack_b = c.pack_b;
  t.a_panel = c.pack_a ? c.mr : 0;
  t.b_panel = c.pack_b ? c.nr : 0;
  // K blocks are kc long but the last (K mod kc); the tail loop only if one of them needs it.
  t.dot = gemm_dot_form(w, c);
  t.phases = gemm_phases(w, c);
  const int64_t step = t.dot ? c.vec : t.phases;  // the K loop's steps: vectors (dot), else groups of values
  const int64_t full = std::min<int64_t>(c.kc, w.k) / step, last = w.k % c.kc / step;
  t.tail = full % c.unroll != 0 || last % c.unroll != 0;
  t.one_k_block = w.k <= c.kc;
  // Straight, every unroll is the same code: one key for them.
  if (w.k <= std::min<int64_t>(c.kc, kStraightK)) t.k = w.k, t.unroll = 1, t.tail = false;
  t.masked_loads = tile_masks_b(w, c);
  t.sweep_n = tile_sweeps_n(w, c);
  // The next call reads the next K block of the same columns where the K blocks are walked
  // inside the N blocks (nkm, and for one band of rows nmk and mnk alike). Also where N is one
  // block, but there it measured even (8×4096×4096 on 8 × 32, nc 4096, 4 alternated rounds).
  t.fetch_wraps = t.sweep_n && t.prefetch_n > 0 &&
                  (c.order == LoopOrder::nkm || c.order == LoopOrder::nmk || c.order == LoopOrder::mnk);
  t.next_panel = c.pack_b;
  t.lda = c.pack_a ? 0 : w.lda;
  t.ldb = c.pack_b ? 0 : w.ldb;
  t.ldc = w.ldc;
  // Interleaved, a tile's rows lie kInterleavedRows rows apart in A and C.
  if (c.tiles == TileOrder::interleaved) t.lda *= kInterleavedRows, t.ldc *= kInterleavedRows;
  t.beta = w.beta == 0.0f ? 0.0f : w.beta;  // one key for -0 and +0
  if (c.c_buf) t.c_buffer = true, t.ldc = c.nr, t.beta = 0.0f;
  if (c.k_spread) t.k_stride = w.k / c.kc;
  return t;
}

std::vector<int> edge_tile_rows(const Workload& w, const GemmConfig& c) {
  std::set<int> remainders;
  for (int64_t m = w.least_m(); m <= w.m && int64_t(remainders.size()) < c.mr; ++m)
    if (m % c.mr != 0) remainders.insert(int(m % c.mr));
  if (const int balanced = balanced_edge_rows(w, c); balanced > 0) remainders.insert(balanced);
  std::vector<int> powers;
  for (int p = 1; p < c.mr; p *= 2) powers.push_back(p);
  if (remainders.size() > powers.size()) return powers;
  return {remainders.begin(), remainders.end()};
}

int balanced_edge_rows(const Workload& w, const GemmConfig& c) {
  constexpr int kFmasInFlight = 8;
  const int64_t rest = w.m % c.mr;
  if (w.min_m > 0 || c.pack_a || gemm_dot_form(w, c) || gemm_phases(w, c) > 1 || rest == 0) return 0;
  const bool short_edge = rest * (c.nr / c.vec) < kFmasInFlight && rest < c.mr - 1;
  // Enough whole tiles above the remainder to merge with it.
  return short_edge && w.m / c.mr >= c.mr - 1 - rest ? c.mr - 1 : 0;
}

TileSpec edge_tile_spec(const Workload& w, const GemmConfig& c, int rows) {
  TileSpec t = tile_spec(w, c);
  t.rows = rows;
  if (w.n < c.nr && n_edge_columns(w, c) > 0) t.nr = n_edge_columns(w, c);  // as narrow as B
  // It runs one tile in ceil(M / mr): not unrolled, its compile costs a fraction of the main
  // tile's.
  t.unroll = 1, t.tail = false, t.sweep_n = t.fetch_wraps = false, t.next_panel = false;
  if (edge_is_minor(rows, w.least_m())) t.prefetch = t.prefetch_n = t.prefetch_c = t.prefetch_a = 0;
  return t;
}

int n_edge_columns(const Workload& w, const GemmConfig& c) {
  if (gemm_dot_form(w, c) || gemm_phases(w, c) > 1 || w.n % c.nr == 0 || dot_edge_columns(w, c) > 0) return 0;
  const int columns = int(columns_computed(w.n % c.nr, c.vec));
  if (columns == c.nr) return 0;
  if (w.n < c.nr) return columns;  // it replaces the main tile
  // A piece more to compile: only where it saves a 64th of the columns computed. On all N, with
  // the prefetch knobs in its key, 777×555×333's random:300 compile median went from 8.6 to
  // 15 ms; at a 64th, without them (configs share the piece), random:150's from 7.1–7.5 to
  // 7.8–8.1 ms. A 16th left 777×555×333 computing 576 columns for 555: 3–4% slower against
  // OpenBLAS, 301³ 3–5% (alternated runs, Zen 5).
  const int64_t whole = columns_computed(w.n, c.nr), saved = c.nr - columns;
  return saved * 64 >= whole ? columns : 0;
}

TileSpec n_edge_tile_spec(const Workload& w, const GemmConfig& c) {
  TileSpec t = tile_spec(w, c);
  t.nr = n_edge_columns(w, c);
  if (w.n < c.nr) return t;  // the only tile of its rows
  // It runs the last panel, with none after it to fetch, one tile at a time across N. Not
  // unrolled: alternated runs measured the same speed as unrolled (65³, 257³, 513³) and
  // 1–2 ms less compile at 65³. No prefetch either: configs that differ only there share it,
  // and 65×68×65, 127×255×129, 999³ ran the same without (alternated runs, Zen 5).
  t.unroll = 1, t.tail = false, t.sweep_n = t.fetch_wraps = false, t.next_panel = false;
  t.prefetch = t.prefetch_n = t.prefetch_c = t.prefetch_a = 0;
  return t;
}

TileSpec dot_edge_spec(const Workload& w, const GemmConfig& c) {
  TileSpec t;
  t.vec = c.vec, t.nr = dot_edge_columns(w, c), t.unroll = 1;
  // Up to 4 rows at a time where their accumulators fit: each vector of B serves them all, and
  // 4 × 4 sums fold into one vector (Zen 5, 65×68×65 on 6 × 64, against OpenBLAS in the same
  // runs: one row at a time 0.97–0.98x, four 1.01–1.06x).
  t.rows = 1;
  while (t.rows < 4 && dot_columns(t.rows + 1, Target::host().vector_registers()) >= t.nr) ++t.rows;
  t.dot = true, t.one_k_block = true, t.counts_rows = true;
  t.lda = w.lda, t.ldb = w.trans_b ? w.ldb : w.k, t.ldc = w.ldc;
  t.beta = w.beta == 0.0f ? 0.0f : w.beta;
  return t;
}

ColumnRunsSpec column_runs_spec(const Workload& w, const GemmConfig& c) {
  return {dot_edge_columns(w, c), w.k, w.ldb};
}

bool tile_masks_b(const Workload& w, const GemmConfig& c) { return !c.pack_b && !gemm_dot_form(w, c) && w.n < c.nr; }

bool tile_sweeps_n(const Workload& w, const GemmConfig& c) {
  return w.min_m == 0 && w.m == c.mr && !c.pack_b && !gemm_dot_form(w, c) && !tile_masks_b(w, c) &&
         c.tiles == TileOrder::nm;
}

PackASpec pack_a_spec(const Workload& w, const GemmConfig& c) { return PackASpec{c.mr, w.lda}; }

PackBSpec pack_b_spec(const Workload& w, const GemmConfig& c) {
  return PackBSpec{c.vec, c.nr, w.ldb, w.trans_b, gemm_phases(w, c)};
}

EpilogueSpec epilogue_spec(const Workload& w) { return EpilogueSpec{w.ldc, w.bias, w.act}; }

TransposeOutSpec transpose_out_spec(const Workload& w) {
  return TransposeOutSpec{swapped_workload(w).ldc, w.ldc, w.beta == 0.0f ? 0.0f : w.beta, w.bias, w.act};
}

}  // namespace livetune
