// The dot edge's copy of B's last columns into runs along K (gemm_driver.cpp's dot_edge): run
// j holds column j's K values, which the dot tile then reads as vectors along K.

#include "jit/gemm_emitter.hpp"
#include "jit/ir_loops.hpp"

namespace livetune {

// n vectors holding W rows of n floats one after another → n vectors, column j in result j.
// An even n splits into the even and the odd floats of each pair of vectors (one two-source
// permute each), each half again W rows of n / 2 columns; an odd n gathers each column by a
// chain of two-source permutes, one vector more each. 2 permutes per vector for n = 4, 3 for
// n = 8, n − 1 for odd n.
// A fence after each: one wide shuffle of all n vectors joined ran about as fast end to end
// but took the instruction selector ~30 ms at n = 8 (its demanded-elements walk, as in
// transpose).
std::vector<llvm::Value*> GemmEmitter::columns_of(const std::vector<llvm::Value*>& x) {
  const int n = int(x.size());
  if (n == 1) return x;
  auto fenced = [&](llvm::Value* v) { return b_.CreateArithmeticFence(v, vec_); };
  if (n % 2 == 0) {
    std::vector<int> even, odd;
    for (int l = 0; l < W_; ++l) even.push_back(2 * l), odd.push_back(2 * l + 1);
    std::vector<llvm::Value*> evens, odds;
    for (size_t i = 0; i < x.size(); i += 2) {
      evens.push_back(fenced(b_.CreateShuffleVector(x[i], x[i + 1], even)));
      odds.push_back(fenced(b_.CreateShuffleVector(x[i], x[i + 1], odd)));
    }
    const std::vector<llvm::Value*> from_evens = columns_of(evens), from_odds = columns_of(odds);
    std::vector<llvm::Value*> columns;
    for (size_t j = 0; j < from_evens.size(); ++j) columns.push_back(from_evens[j]), columns.push_back(from_odds[j]);
    return columns;
  }
  std::vector<llvm::Value*> columns;
  for (int j = 0; j < n; ++j) {
    // Lane l of column j is float l·n + j: lane (l·n + j) mod W of x[(l·n + j) / W]. The
    // chain holds the lanes from x[0..v) (x[0] itself before the first step).
    llvm::Value* column = x[0];
    for (int v = 1; v < n; ++v) {
      std::vector<int> lanes;
      for (int l = 0; l < W_; ++l) {
        const int at = l * n + j, from = at / W_;
        lanes.push_back(from == v ? W_ + at % W_ : from > v ? -1 : v == 1 ? at % W_ : l);
      }
      column = fenced(b_.CreateShuffleVector(column, x[size_t(v)], lanes));
    }
    columns.push_back(column);
  }
  return columns;
}

void GemmEmitter::emit_column_runs(const ColumnRunsSpec& s, const std::string& name) {
  use_width(widest_);
  llvm::Function* f = begin_function(name, {ptr_, ptr_});
  auto arg = f->arg_begin();
  llvm::Value *src = arg++, *runs = arg++;
  const int n = s.columns;
  if (s.ldb != n) {
    // Rows of B padded past the columns: row by row, its few floats at once.
    ir::emit_for(b_, i64(0), i64(s.k), 1, {{src, i64(s.ldb)}, {runs, i64(1)}}, [&](llvm::Value*, const auto& at) {
      for (int j = 0; j < n; ++j)
        b_.CreateAlignedStore(b_.CreateAlignedLoad(f32_, f32_ptr(at[0], j), llvm::Align(4)),
                              f32_ptr(at[1], int64_t(j) * s.k), llvm::Align(4));
    }, "runs.p");
    b_.CreateRetVoid();
    return;
  }
  // B's rows one after another (ldb = columns): W rows are n whole vectors, column j every
  // n-th float of them from j (columns_of). The same sort as one wide shuffle, compiled by
  // clang, against the row-by-row copy on Zen 5: 4 columns × 1024 rows 0.16 against 0.61 µs,
  // 3 × 3008 0.45 against 1.44, 8 × 704 0.29 against 0.91.
  auto window = [&](llvm::Value* from, llvm::Value* to, int rows) {
    std::vector<llvm::Value*> parts;
    for (int v = 0; v < n; ++v) {
      const int lanes = std::min(W_, rows * n - v * W_);  // of B's floats left (the tail's rows)
      if (lanes <= 0) {
        parts.push_back(llvm::ConstantAggregateZero::get(vec_));
        continue;
      }
      llvm::Value* mask = lanes < W_ ? lane_mask(i64(lanes)) : nullptr;
      parts.push_back(load_vector(f32_ptr(from, int64_t(v) * W_), llvm::Align(4), mask));
    }
    const std::vector<llvm::Value*> columns = columns_of(parts);
    llvm::Value* mask = rows < W_ ? lane_mask(i64(rows)) : nullptr;
    for (int j = 0; j < n; ++j) store_vector(columns[size_t(j)], f32_ptr(to, int64_t(j) * s.k), llvm::Align(4), mask);
  };
  const int64_t whole = s.k / W_ * W_;
  ir::emit_for(b_, i64(0), i64(whole), W_, {{src, i64(int64_t(W_) * n)}, {runs, i64(W_)}},
               [&](llvm::Value*, const auto& at) { window(at[0], at[1], W_); }, "runs.w");
  if (whole < s.k) window(f32_ptr(src, whole * n), f32_ptr(runs, whole), int(s.k - whole));
  b_.CreateRetVoid();
}

}  // namespace livetune
