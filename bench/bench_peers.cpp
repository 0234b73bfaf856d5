// Peer libraries on a few shapes, as Google Benchmark sees them (wall time; GFLOP counter shown
// per second). For numbers to quote, prefer `livetune bench`: it interleaves and waits for a
// quiet machine.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "jit/workload.hpp"
#include "tools/peers/peer.hpp"

namespace {

struct Shape {
  int64_t m, n, k;
};

const Shape kShapes[] = {{64, 64, 64}, {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024},
                         {127, 255, 129}, {1, 4096, 4096}};

void bench_peer(benchmark::State& state, const std::string& name, const livetune::Workload& w, int threads) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto filled = [&](int64_t count) {
    std::vector<float> v(static_cast<size_t>(count));
    for (float& x : v) x = dist(rng);
    return v;
  };
  auto a = filled(w.m * w.lda), b = filled(w.b_rows() * w.ldb), bias = filled(w.n), c = filled(w.m * w.ldc);
  auto peer = livetune::peers::make_peer(name);
  peer->prepare(w, a.data(), b.data(), bias.data(), c.data(), threads);
  peer->run();  // first call outside the timing: page faults, JIT, thread start-up
  for (auto _ : state) {
    peer->run();
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP"] = benchmark::Counter(w.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(peer->detail());
}

}  // namespace

int main(int argc, char** argv) {
  for (int threads : {1, 2}) {
    for (const Shape& s : kShapes) {
      auto w = livetune::Workload::matmul(s.m, s.n, s.k);
      for (const std::string& name : livetune::peers::peer_names()) {
        std::string title = name + "/" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                            "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(title.c_str(), bench_peer, name, w, threads)->UseRealTime();
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
