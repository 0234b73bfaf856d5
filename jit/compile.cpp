#include "jit/compile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>

#include "jit/gemm_config.hpp"
#include "jit/gemm_pieces.hpp"
#include "jit/piece_cache.hpp"

namespace livetune {
namespace {

// A piece the kernel may need: its request, where it goes in the kernel, and for a tile its spec.
struct Part {
  PieceRequest request;
  std::function<void(Kernel&, void*)> place;
  std::optional<TileSpec> tile;
};

// A distinct non-null address per part, standing in for its code while the call is planned.
void* stand_in(size_t part) { return reinterpret_cast<void*>(uintptr_t(part + 1)); }

WholeCallSpec whole_call_spec(const std::vector<PlannedCall>& plan, const std::vector<Part>& parts,
                              const EpilogueSpec& epilogue) {
  WholeCallSpec s;
  s.epilogue = epilogue;
  s.calls = plan;
  std::vector<int> index_of(parts.size(), -1);
  for (const PlannedCall& p : plan) {
    int index = -1;
    if (p.tile) {
      const size_t part = size_t(reinterpret_cast<uintptr_t>(p.tile)) - 1;
      if (index_of[part] < 0) index_of[part] = int(s.tiles.size()), s.tiles.push_back(*parts[part].tile);
      index = index_of[part];
    }
    s.tile_of.push_back(index);
  }
  return s;
}

}  // namespace

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

  std::vector<Part> parts;
  auto emit_tile = [](const TileSpec& s) {
    return [s](GemmEmitter& e, const std::string& n) { e.emit_tile(s, n); };
  };
  auto add_tile = [&](const TileSpec& s, std::function<void(Kernel&, void*)> place) {
    parts.push_back({{s.key(), emit_tile(s)}, std::move(place), s});
  };
  auto add = [&](const std::string& key, std::function<void(GemmEmitter&, const std::string&)> emit,
                 std::function<void(Kernel&, void*)> place) {
    parts.push_back({{key, std::move(emit)}, std::move(place), std::nullopt});
  };
  // B narrower than one tile and short enough for the dot edge: it computes all of C, and the
  // tiles and packing that would run the blocked walk are not compiled.
  const int dot_columns = dot_edge_columns(w, g);
  const bool all_dot = dot_columns == w.n;
  // B narrower than one tile: every tile is an N-edge tile.
  const int edge_columns = all_dot ? 0 : n_edge_columns(w, g);
  const bool all_edge = edge_columns > 0 && w.n < g.nr;
  const TileSpec tile = all_edge ? n_edge_tile_spec(w, g) : tile_spec(w, g);
  if (!all_dot)
    add_tile(tile, [all_edge](Kernel& k, void* fn) {
      k.tile = reinterpret_cast<TileFn>(fn);
      if (all_edge) k.n_edge_tile = k.tile;
    });
  if (!all_dot)
    for (int rows : edge_tile_rows(w, g))
      add_tile(edge_tile_spec(w, g, rows),
               [rows](Kernel& k, void* fn) { k.edge_tiles[size_t(rows)] = reinterpret_cast<TileFn>(fn); });
  if (edge_columns > 0 && !all_edge)
    add_tile(n_edge_tile_spec(w, g), [](Kernel& k, void* fn) { k.n_edge_tile = reinterpret_cast<TileFn>(fn); });
  if (dot_columns > 0)
    add_tile(dot_edge_spec(w, g), [](Kernel& k, void* fn) { k.dot_edge = reinterpret_cast<TileFn>(fn); });
  if (dot_columns > 0 && !w.trans_b) {
    const ColumnRunsSpec s = column_runs_spec(w, g);
    add(s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_column_runs(s, n); },
        [](Kernel& k, void* fn) { k.column_runs = reinterpret_cast<ColumnRunsFn>(fn); });
  }
  if (g.pack_a && !all_dot) {
    const PackASpec s = pack_a_spec(w, g);
    add(s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_pack_a(s, n); },
        [](Kernel& k, void* fn) { k.pack_a = reinterpret_cast<PackAFn>(fn); });
  }
  if (g.pack_b && !all_dot) {
    const PackBSpec s = pack_b_spec(w, g);
    add(s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_pack_b(s, n); },
        [](Kernel& k, void* fn) { k.pack_b = reinterpret_cast<PackBFn>(fn); });
  }
  const EpilogueSpec epilogue = epilogue_spec(w);
  if (w.bias || w.act != ActivationKind::none)
    add(epilogue.key(), [epilogue](GemmEmitter& e, const std::string& n) { e.emit_epilogue(epilogue, n); },
        [](Kernel& k, void* fn) { k.epilogue = reinterpret_cast<EpilogueFn>(fn); });
  if (g.swap) {
    const TransposeOutSpec s = transpose_out_spec(caller);
    add(s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_transpose_out(s, n); },
        [](Kernel& k, void* fn) { k.transpose_out = reinterpret_cast<TransposeOutFn>(fn); });
  }

  auto kernel = std::make_shared<Kernel>();
  kernel->workload = caller;
  kernel->config = c;
  kernel->gemm = g;
  kernel->computed = w;
  if (edge_columns > 0) kernel->n_edge_columns = edge_columns;
  if (dot_columns > 0) kernel->dot_edge_columns = dot_columns;
  kernel->columns_per_tile = tile_columns(w, g);
  kernel->tiles = gemm_tiles(caller, g);
  kernel->workspace_floats = gemm_workspace_floats(caller, g);
  kernel->packed_a_floats = gemm_packed_a_floats(w, g);
  if (g.swap) kernel->swap_rows_offset = swap_rows_offset(caller, g);
  kernel->c_buffer_offset = kernel->workspace_floats - gemm_c_buffer_floats(caller, g);
  kernel->dot_edge_offset = kernel->c_buffer_offset - gemm_dot_edge_floats(w, g);
  kernel->balanced_rows = balanced_edge_rows(w, g);
  kernel->edge_moves_left = !g.pack_b && !tile.dot && !tile_masks_b(w, g);
  kernel->tile_sweeps_n = tile.sweep_n;

  // The driver's walk of a whole call, planned with stand-ins for the pieces' code.
  for (size_t i = 0; i < parts.size(); ++i) parts[i].place(*kernel, stand_in(i));
  std::vector<PlannedCall> plan = plan_calls(*kernel);
  const std::string dump_header = caller.text() + "\n" + c.text() + "\n";
  // The whole call takes no workspace: a plan that copies B's columns for the dot edge is replayed.
  const auto uses_workspace = [](const PlannedCall& p) { return p.uses_workspace(); };
  const bool whole_call = !plan.empty() && w.min_m == 0 && w.m * w.n * w.k <= kWholeCallFlops &&
                          std::none_of(plan.begin(), plan.end(), uses_workspace);
  if (whole_call) {
    for (const Part& p : parts) p.place(*kernel, nullptr);
    const WholeCallSpec s = whole_call_spec(plan, parts, epilogue);
    ObtainedPieces got =
        obtain_pieces({{s.key(), [s](GemmEmitter& e, const std::string& n) { e.emit_whole_call(s, n); }}}, dump_header);
    kernel->whole_call = reinterpret_cast<WholeCallFn>(got.pieces[0]->fn);
    kernel->tiles = 1;
    kernel->workspace_floats = 0;
    kernel->pieces = std::move(got.pieces);
    kernel->pieces_compiled = got.compiled;
  } else {
    std::vector<PieceRequest> requests;
    for (const Part& p : parts) requests.push_back(p.request);
    ObtainedPieces got = obtain_pieces(requests, dump_header);
    for (size_t i = 0; i < parts.size(); ++i) parts[i].place(*kernel, got.pieces[i]->fn);
    for (PlannedCall& p : plan)
      if (p.tile) p.tile = reinterpret_cast<TileFn>(got.pieces[reinterpret_cast<uintptr_t>(p.tile) - 1]->fn);
    kernel->plan = std::move(plan);
    kernel->pieces = std::move(got.pieces);
    kernel->pieces_compiled = got.compiled;
  }
  if (kernel->takes_packed_b()) {
    kernel->b_layout = packed_b_layout_key(w, g);
    kernel->b_layout_hash = std::hash<std::string>{}(kernel->b_layout);
  }
  kernel->compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return kernel;
}

}  // namespace livetune
