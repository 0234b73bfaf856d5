// How fast memory delivers a large row-major B (K×N floats, beyond the caches) in the orders
// a GEMM can read it, with no arithmetic to wait for. First the roof `livetune bench` divides
// by (ReadProbe: the fastest of one stream and of 4 or 8 side by side). Then the order of a
// kernel with a few rows of A that reads B in place: it keeps only a few dozen columns of C in
// registers, so it reads a block of rows a few lines across at a time, each row a page of its
// own when N is large, with the lines some rows ahead fetched into L2.
// Run with --benchmark_repetitions=9 --benchmark_report_aggregates_only: the machines are
// shared, so compare medians of one run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "runtime/isa_dispatch.hpp"
#include "tools/measure/bandwidth.hpp"

namespace {

constexpr int64_t kRows = 4096, kCols = 4096, kBytes = kRows * kCols * int64_t(sizeof(float));
typedef float V16 __attribute__((vector_size(64)));  // one cache line

// Blocks of `rows` rows; in each, tiles `lines` lines wide from left to right, each read row
// after row, prefetching the tile's lines `ahead` rows down into L2 (0: none).
[[gnu::always_inline]] inline float read_tiles_body(const float* b, int64_t rows, int64_t lines, int64_t ahead) {
  const auto line = [b](int64_t r, int64_t l) { return reinterpret_cast<const V16*>(b + r * kCols) + l; };
  V16 s[4] = {};
  for (int64_t k0 = 0; k0 < kRows; k0 += rows)
    for (int64_t j = 0; j + lines <= kCols / 16; j += lines)
      for (int64_t k = k0; k < k0 + rows; ++k) {
        if (ahead > 0 && k + ahead < kRows)
          for (int64_t l = 0; l < lines; ++l) __builtin_prefetch(line(k + ahead, j + l), 0, 2);
        for (int64_t l = 0; l < lines; ++l) s[l % 4] += *line(k, j + l);
      }
  return (s[0] + s[1] + s[2] + s[3])[0];
}
LIVETUNE_ISA_AVX512 float read_tiles_avx512(const float* b, int64_t r, int64_t l, int64_t a) {
  return read_tiles_body(b, r, l, a);
}
LIVETUNE_ISA_AVX2 float read_tiles_avx2(const float* b, int64_t r, int64_t l, int64_t a) {
  return read_tiles_body(b, r, l, a);
}
float read_tiles_generic(const float* b, int64_t r, int64_t l, int64_t a) { return read_tiles_body(b, r, l, a); }
const auto read_tiles = livetune::pick_for_cpu(&read_tiles_avx512, &read_tiles_avx2, &read_tiles_generic);

void BM_ReadProbe(benchmark::State& state) {
  livetune::ReadProbe probe(kBytes, 1);
  for (auto _ : state) probe.run();
  state.SetBytesProcessed(int64_t(state.iterations()) * probe.bytes());
}
BENCHMARK(BM_ReadProbe)->Unit(benchmark::kMillisecond);

void BM_ReadTileOrder(benchmark::State& state) {
  std::unique_ptr<float, decltype(&std::free)> b(static_cast<float*>(std::aligned_alloc(64, kBytes)), &std::free);
  std::fill(b.get(), b.get() + kRows * kCols, 1.0f);
  for (auto _ : state) benchmark::DoNotOptimize(read_tiles(b.get(), state.range(0), state.range(1), state.range(2)));
  state.SetBytesProcessed(int64_t(state.iterations()) * kBytes);
}
// The M = 8 tile (8 rows × 48 columns: 3 lines) with the K blocks and prefetch distances the
// search picks, without prefetch, a tile a line wider, and short blocks streamed along the
// rows (the order of the M = 1 kernel).
BENCHMARK(BM_ReadTileOrder)
    ->Args({512, 3, 32})
    ->Args({256, 3, 16})
    ->Args({512, 3, 0})
    ->Args({512, 4, 32})
    ->Args({8, 4, 0})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
