// Developers' quick checks of the JIT path (Google Benchmark): the default config's kernel
// per shape, the compile latency of one variant, and a call through the Runtime.
#include <benchmark/benchmark.h>

#include <sys/mman.h>

#include <algorithm>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "livetune/livetune.hpp"
#include "policy/default_rule.hpp"
#include "runtime/executor.hpp"

namespace {

using livetune::Workload;

void BM_JitGemm(benchmark::State& state) {
  const Workload w = Workload::matmul(state.range(0), state.range(1), state.range(2));
  auto kernel = livetune::compile_gemm(w, livetune::default_gemm_config(w, livetune::Target::host(), 1));
  std::vector<float> a(size_t(w.m * w.k), 0.5f), b(size_t(w.k * w.n), 0.25f), c(size_t(w.m * w.n));
  livetune::Executor exec(1);
  for (auto _ : state) {
    exec.run(*kernel, kernel->workload.m, a.data(), b.data(), nullptr, c.data());
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(w.flops() * double(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_JitGemm)
    ->Args({64, 64, 64})
    ->Args({256, 256, 256})
    ->Args({512, 512, 512})
    ->Args({127, 255, 129})
    ->Args({1, 4096, 4096})
    ->Unit(benchmark::kMicrosecond);

// B transposed, its last row at the end of the memory mapped for it: the pack of the edge
// panel must not aim its masked-off loads of rows past N at the pages after B (a fault assist
// each on Zen 5: this ran 6x slower when it did).
void BM_JitGemmTransBBeforeUnmappedPages(benchmark::State& state) {
  const Workload w = Workload::matmul(6, 261, 576, true);
  const livetune::Config config = livetune::gemm_space(w, livetune::Target::host())
                                      .parse("mr=6 nr=48 vec=16 kc=768 mc=96 nc=1536 pack_a=0 pack_b=1 unroll=4 prefetch=0 "
                                             "prefetch_n=0 prefetch_c=1 order=nkm split=m tiles=nm swap=0 c_buf=0 "
                                             "k_spread=0");
  auto kernel = livetune::compile_gemm(w, config);
  const size_t page = 4096, b_bytes = size_t(w.n * w.k) * sizeof(float);
  const size_t mapped = (b_bytes + page - 1) / page * page, guard = 64 * page;
  char* region = static_cast<char*>(
      mmap(nullptr, mapped + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (region == MAP_FAILED) {
    state.SkipWithError("mmap failed");
    return;
  }
  mprotect(region + mapped, guard, PROT_NONE);
  float* b = reinterpret_cast<float*>(region + mapped - b_bytes);
  std::fill(b, b + w.n * w.k, 0.25f);
  std::vector<float> a(size_t(w.m * w.k), 0.5f), c(size_t(w.m * w.n));
  livetune::Executor exec(1);
  for (auto _ : state) {
    exec.run(*kernel, kernel->workload.m, a.data(), b, nullptr, c.data());
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(w.flops() * double(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
  munmap(region, mapped + guard);
}
BENCHMARK(BM_JitGemmTransBBeforeUnmappedPages)->Unit(benchmark::kMicrosecond);

void BM_CompileLatency(benchmark::State& state) {
  const Workload w = Workload::matmul(state.range(0), state.range(1), state.range(2));
  const auto config = livetune::default_gemm_config(w, livetune::Target::host(), 1);
  for (auto _ : state) benchmark::DoNotOptimize(livetune::compile_gemm(w, config));
}
BENCHMARK(BM_CompileLatency)->Args({512, 512, 512})->Args({127, 255, 129})->Args({65, 65, 65})->Unit(benchmark::kMillisecond);

void BM_RuntimeCall4x4x4(benchmark::State& state) {
  livetune::RuntimeOptions options;
  options.threads = 1;
  livetune::Runtime rt(options);
  std::vector<float> a(16, 0.5f), b(16, 0.25f), c(16);
  const auto av = livetune::TensorView::matrix(a.data(), 4, 4), bv = livetune::TensorView::matrix(b.data(), 4, 4),
             cv = livetune::TensorView::matrix(c.data(), 4, 4);
  rt.matmul(av, bv, cv);
  rt.wait_idle();
  for (auto _ : state) rt.matmul(av, bv, cv);
}
BENCHMARK(BM_RuntimeCall4x4x4);

}  // namespace

BENCHMARK_MAIN();
