#pragma once
// The CPU GEMM generator: small emitters, one per piece (gemm_pieces.hpp), that add
// functions to one LLVM module. Sizes the piece depends on are baked in as constants; the
// register tile is explicit <W x float> vectors and llvm.fma.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "jit/gemm_pieces.hpp"
#include "jit/target.hpp"

namespace livetune {

class GemmEmitter {
 public:
  GemmEmitter(llvm::LLVMContext& ctx, const Target& t);

  // Each defines an external function `name` with the signature of its piece.
  // The register tile (gemm_microkernel.cpp), or with TileSpec::dot the dot tile (gemm_dot_tile.cpp).
  void emit_tile(const TileSpec& s, const std::string& name);
  void emit_pack_a(const PackASpec& s, const std::string& name);     // gemm_pack.cpp
  void emit_pack_b(const PackBSpec& s, const std::string& name);     // gemm_pack.cpp
  void emit_column_runs(const ColumnRunsSpec& s, const std::string& name);  // gemm_column_runs.cpp
  void emit_epilogue(const EpilogueSpec& s, const std::string& name);  // gemm_epilogue.cpp
  void emit_transpose_out(const TransposeOutSpec& s, const std::string& name);  // gemm_transpose_out.cpp
  void emit_whole_call(const WholeCallSpec& s, const std::string& name);        // gemm_whole_call.cpp

  std::unique_ptr<llvm::Module> take() { return std::move(m_); }

 private:
  // A tile piece's arguments (TileFn), as values: the function's, or a whole call's constants.
  struct TileArgs {
    llvm::Value *a, *b, *c, *kb, *first, *cols, *skip_cols, *count, *panels;
  };
  // The pieces' code, emitted where the builder stands.
  void emit_tile_body(const TileSpec& s, const TileArgs& args);
  void emit_dot_tile_body(const TileSpec& s, const TileArgs& args);
  void emit_epilogue_body(const EpilogueSpec& s, llvm::Value* c, llvm::Value* bias, llvm::Value* rows,
                          llvm::Value* cols);

  // A loop over p from `from.p` while a whole `step` of p fits below `bound`, with `acc` and
  // the pointers `from.ptrs` carried in phis, each pointer advancing by its `advance` floats
  // per iteration; `body` emits one iteration from the pointers, updating the accumulators
  // it is given. Returns where p and the pointers stopped; `acc` then holds the results.
  struct LoopState {
    llvm::Value* p;
    std::vector<llvm::Value*> ptrs;
  };
  using LoopBody = std::function<void(const std::vector<llvm::Value*>& ptrs, std::vector<llvm::Value*>& acc)>;
  LoopState emit_accumulating_loop(const LoopState& from, llvm::Value* bound, int64_t step,
                                   const std::vector<int64_t>& advance, std::vector<llvm::Value*>& acc,
                                   const LoopBody& body, const std::string& name);
  void emit_pack_b_phases(const PackBSpec& s, llvm::Value* src, llvm::Value* dst, llvm::Value* kb, llvm::Value* nb);
  // fetch_n: floats ahead along B's rows that prefetch_n fetches from (s.prefetch_n, or where
  // it wraps, TileSpec::fetch_wraps, further).
  void emit_k_loop(const TileSpec& s, llvm::Value* a, llvm::Value* b, llvm::Value* kb,
                   const std::vector<llvm::Value*>& masks, llvm::Value* fetch_n, std::vector<llvm::Value*>& acc);
  void emit_store_tile(const TileSpec& s, llvm::Value* c, llvm::Value* first, const std::vector<llvm::Value*>& masks,
                       const std::vector<llvm::Value*>& acc);
  // The same for columns [skip_cols, cols) only, by the precompiled livetune_store_edge
  // (edge_store.hpp): where masked stores are slow.
  void emit_store_edge(const TileSpec& s, llvm::Value* c, llvm::Value* first, llvm::Value* skip_cols,
                       llvm::Value* cols, const std::vector<llvm::Value*>& acc);
  // W vectors of W lanes, transposed: lane i of result j is lane j of x[i].
  std::vector<llvm::Value*> transpose(std::vector<llvm::Value*> x);
  // W rows of n floats, one after another in n vectors → n vectors, one per column
  // (gemm_column_runs.cpp).
  std::vector<llvm::Value*> columns_of(const std::vector<llvm::Value*>& x);
  // A row of a tile with phases (TileSpec::phases), its groups of lanes summed: lane j of the
  // results (all their lanes in order) holds group j's sum (gemm_microkernel.cpp).
  std::vector<llvm::Value*> phase_sums(std::vector<llvm::Value*> x, int phases);
  // Lane i mod W of result i / W: the sum of the lanes of x[i] (gemm_dot_tile.cpp).
  std::vector<llvm::Value*> lane_sums(const std::vector<llvm::Value*>& x);
  llvm::Value* emit_activation(ActivationKind act, llvm::Value* x);
  llvm::Value* emit_tanh(llvm::Value* x);

  // A function of `args` (pointers and i64s) returning void, with the attributes every piece
  // needs; the builder is left at its entry block.
  llvm::Function* begin_function(const std::string& name, const std::vector<llvm::Type*>& args);
  llvm::Value* lane_mask(llvm::Value* valid_lanes);  // <W x i1>: the lanes below valid_lanes
  llvm::Value* lane_range_mask(llvm::Value* lo, llvm::Value* hi);  // <W x i1>: lanes in [lo, hi)
  llvm::Value* lane_numbers();                                     // <W x i32>: 0, 1, ..., W-1
  // A vector at `ptr`, only the lanes of `mask` (zeros in the others); a null mask: all lanes.
  llvm::Value* load_vector(llvm::Value* ptr, llvm::Align align, llvm::Value* mask);
  void store_vector(llvm::Value* x, llvm::Value* ptr, llvm::Align align, llvm::Value* mask);
  llvm::Value* clamped_count(llvm::Value* count, bool at_least_zero);  // i64 → i32, at most W
  // Prefetches the cache lines of `vectors` vectors from `row`, for reading or writing, into
  // L1 (locality 3) or L2 (locality 2).
  void prefetch_vectors(llvm::Value* row, int vectors, bool write, int locality);
  // Prefetches `lines` cache lines of rows read once (B's, in the dot tile and the swapped
  // form) from `from` for reading, into row_fetch_locality_; they may lie past the operand (a
  // prefetch never faults), so the addresses are plain, not in-bounds, GEPs.
  void prefetch_lines(llvm::Value* from, int64_t lines);
  llvm::Value* f32_ptr(llvm::Value* base, llvm::Value* index);
  llvm::Value* f32_ptr(llvm::Value* base, int64_t index);
  llvm::Value* i64(int64_t v) { return b_.getInt64(v); }
  llvm::Value* splat(float v) { return llvm::ConstantFP::get(vec_, v); }

  // The vector width of the piece being emitted: a tile's own (TileSpec::vec), else the widest.
  void use_width(int floats);

  llvm::LLVMContext& ctx_;
  int widest_;  // floats per vector of the target's widest registers
  int W_ = 0;   // floats per vector of the piece being emitted
  int registers_;  // vector registers
  // AVX-512 masks loads and stores in mask registers at no cost; AVX2's vmaskmovps is
  // microcoded (a masked store of a ymm took ~12 cycles on Zen 3: a 6×16 tile's C update
  // cost a third of a 64³ GEMM), so without them whole vectors are stored unmasked.
  bool cheap_masks_;
  // Where prefetch_lines puts lines: L2 (locality 2) where zmm operations run in halves (Zen
  // 4: the swapped 8×4096×4096 tile read 70–88 GFLOP/s so, 50–59 into L1), L1 (3) on
  // full-width AMD AVX-512 (Zen 5: the swapped tile with K in one block, 256 floats ahead, in
  // one process against no fetch, B in L3 (8×1024×4096) 1.11–1.19x into L1, 1.01–1.03x into
  // L2; from memory 0.97–1.24x by the host's phase, L2 never ahead of L1; the dot tile's one
  // row of A even either way).
  int row_fetch_locality_;
  std::unique_ptr<llvm::Module> m_;
  llvm::IRBuilder<> b_;
  llvm::Type* f32_;
  llvm::Type* i64_;
  llvm::Type* ptr_;
  llvm::FixedVectorType* vec_ = nullptr;
};

}  // namespace livetune
