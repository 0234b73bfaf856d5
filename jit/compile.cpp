#include "jit/compile.hpp"

#include <chrono>
#include <stdexcept>

#include "jit/gemm_config.hpp"
#include "jit/gemm_pieces.hpp"
#include "jit/piece_cache.hpp"

namespace livetune {

void prepare_compile_thread() {
  // A throw-away kernel: the first compile in a process also pays for LLVM's lazy set-up.
  GemmConfig g;
  g.mr = 1, g.nr = Target::host().vector_floats(), g.mc = 16, g.nc = 64;
  compile_gemm(Workload::matmul(1, 16, 1), g.to_config(Target::host()));
}

KernelPtr compile_gemm(const Workload& caller, const Config& c) {
  const auto start = std::chrono::steady_clock::now();
  const Target& target = Target::host();
  if (!gemm_space(caller, target).valid(c))
    throw std::invalid_argument("config '" + c.text() + "' is not valid for '" + caller.text() + "'");
  const GemmConfig g = GemmConfig::from(c);
  // What the pieces compute (the swapped form's C^T); the caller's workload only shapes the
  // swapped form's write of C.
  const Workload w = computed_workload(caller, g);

  std::vector<PieceRequest> requests;
  // B narrower than one tile and short enough for the dot edge: it computes all of C, and the
  // tiles and packing that would run the blocked walk are not compiled.
  const int dot_columns = dot_edge_columns(w, g);
  const bool all_dot = dot_columns == w.n;
  // B narrower than one tile: every tile is an N-edge tile.
  const int edge_columns = all_dot ? 0 : n_edge_columns(w, g);
  const bool all_edge = edge_columns > 0 && w.n < g.nr;
  const TileSpec tile = all_edge ? n_edge_tile_spec(w, g) : tile_spec(w, g);
  auto emit = [](const TileSpec& s) {
    return [s](GemmEmitter& e, const std::string& n) { s.dot ? e.emit_dot_tile(s, n) : e.emit_tile(s, n); };
  };
  if (!all_dot) requests.push_back({tile.key(), emit(tile)});
  const std::vector<int> edge_rows = all_dot ? std::vector<int>{} : edge_tile_rows(w, g);
  for (int rows : edge_rows) {
    const TileSpec s = edge_tile_spec(w, g, rows);
    requests.push_back({s.key(), emit(s)});
  }
  if (edge_columns > 0 && !all_edge) {
    const TileSpec s = n_edge_tile_spec(w, g);
    requests.push_back({s.key(), emit(s)});
  }
  if (dot_columns > 0) {
    const TileSpec s = dot_edge_spec(w, g);
    requests.push_back({s.key(), emit(s)});
  }
  const bool column_runs = dot_columns > 0 && !w.trans_b;
  if (column_runs) {
    const ColumnRunsSpec s = column_runs_spec(w, g);
    requests.push_back({s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_column_runs(s, n); }});
  }
  const bool pack_a = g.pack_a && !all_dot, pack_b = g.pack_b && !all_dot;
  if (pack_a) {
    const PackASpec s = pack_a_spec(w, g);
    requests.push_back({s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_pack_a(s, n); }});
  }
  if (pack_b) {
    const PackBSpec s = pack_b_spec(w, g);
    requests.push_back({s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_pack_b(s, n); }});
  }
  if (w.bias || w.act != ActivationKind::none) {
    const EpilogueSpec s = epilogue_spec(w);
    requests.push_back({s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_epilogue(s, n); }});
  }
  if (g.swap) {
    const TransposeOutSpec s = transpose_out_spec(caller);
    requests.push_back({s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_transpose_out(s, n); }});
  }
  ObtainedPieces got = obtain_pieces(requests, caller.text() + "\n" + c.text() + "\n");

  auto kernel = std::make_shared<Kernel>();
  kernel->workload = caller;
  kernel->config = c;
  kernel->gemm = g;
  kernel->computed = w;
  size_t i = 0;
  if (!all_dot) kernel->tile = reinterpret_cast<TileFn>(got.pieces[i++]->fn);
  for (int rows : edge_rows) kernel->edge_tiles[size_t(rows)] = reinterpret_cast<TileFn>(got.pieces[i++]->fn);
  if (edge_columns > 0) {
    kernel->n_edge_tile = all_edge ? kernel->tile : reinterpret_cast<TileFn>(got.pieces[i++]->fn);
    kernel->n_edge_columns = edge_columns;
  }
  if (dot_columns > 0) {
    kernel->dot_edge = reinterpret_cast<TileFn>(got.pieces[i++]->fn);
    kernel->dot_edge_columns = dot_columns;
  }
  if (column_runs) kernel->column_runs = reinterpret_cast<ColumnRunsFn>(got.pieces[i++]->fn);
  if (pack_a) kernel->pack_a = reinterpret_cast<PackAFn>(got.pieces[i++]->fn);
  if (pack_b) kernel->pack_b = reinterpret_cast<PackBFn>(got.pieces[i++]->fn);
  if (w.bias || w.act != ActivationKind::none) kernel->epilogue = reinterpret_cast<EpilogueFn>(got.pieces[i++]->fn);
  if (g.swap) kernel->transpose_out = reinterpret_cast<TransposeOutFn>(got.pieces[i++]->fn);
  kernel->pieces = std::move(got.pieces);
  kernel->pieces_compiled = got.compiled;
  if (kernel->takes_packed_b()) {
    kernel->b_layout = packed_b_layout_key(w, g);
    kernel->b_layout_hash = std::hash<std::string>{}(kernel->b_layout);
  }
  kernel->columns_per_tile = tile_columns(w, g);
  kernel->tiles = gemm_tiles(caller, g);
  kernel->workspace_floats = gemm_workspace_floats(caller, g);
  kernel->packed_a_floats = gemm_packed_a_floats(w, g);
  if (g.swap) kernel->swap_rows_offset = swap_rows_offset(caller, g);
  kernel->dot_edge_offset = kernel->workspace_floats - gemm_dot_edge_floats(w, g);
  kernel->balanced_rows = balanced_edge_rows(w, g);
  kernel->edge_moves_left = !g.pack_b && !tile.dot && !tile_masks_b(w, g);
  kernel->tile_sweeps_n = tile.sweep_n;
  kernel->plan = plan_calls(*kernel);
  kernel->compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return kernel;
}

}  // namespace livetune
