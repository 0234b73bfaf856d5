#include "tools/livetune/bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "runtime/isa_dispatch.hpp"

namespace livetune::cli {
namespace {

typedef float V16 __attribute__((vector_size(64)));

// Sums a buffer with four independent vector accumulators: bound by loads, not by adds.
[[gnu::always_inline]] inline float read_all_body(const float* data, int64_t floats) {
  V16 s0 = {}, s1 = {}, s2 = {}, s3 = {};
  const V16* v = reinterpret_cast<const V16*>(data);
  const int64_t n = floats / 16;
  for (int64_t i = 0; i + 4 <= n; i += 4) {
    s0 += v[i];
    s1 += v[i + 1];
    s2 += v[i + 2];
    s3 += v[i + 3];
  }
  V16 s = s0 + s1 + s2 + s3;
  float total = 0;
  for (int l = 0; l < 16; ++l) total += s[l];
  return total;
}

LIVETUNE_ISA_AVX512 float read_all_avx512(const float* data, int64_t floats) { return read_all_body(data, floats); }
LIVETUNE_ISA_AVX2 float read_all_avx2(const float* data, int64_t floats) { return read_all_body(data, floats); }
float read_all_generic(const float* data, int64_t floats) { return read_all_body(data, floats); }
const auto read_all = pick_for_cpu(&read_all_avx512, &read_all_avx2, &read_all_generic);

}  // namespace

double measure_read_bandwidth_gbs(int64_t bytes, int threads) {
  const int64_t per_thread = std::max<int64_t>(bytes / threads, 4096) / 256 * 256;
  std::vector<std::unique_ptr<float, decltype(&std::free)>> buffers;
  for (int t = 0; t < threads; ++t) {
    float* p = static_cast<float*>(std::aligned_alloc(64, size_t(per_thread)));
    std::fill(p, p + per_thread / 4, 1.0f);
    buffers.emplace_back(p, &std::free);
  }
  // Enough passes for ≥ 20 ms; the best of five runs (the machine is shared).
  const int passes = int(std::max<int64_t>(1, (int64_t(400) << 20) / std::max<int64_t>(bytes, 1)));
  double best = 0;
  std::vector<float> sink(static_cast<size_t>(threads));
  for (int run = 0; run < 5; ++run) {
    std::vector<std::thread> pool;
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int p = 0; p < passes; ++p) sink[size_t(t)] += read_all(buffers[size_t(t)].get(), per_thread / 4);
      });
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, double(per_thread) * threads * passes / s / 1e9);
  }
  return best;
}

double memory_roof_gflops(double flops, double bytes, double gbs) { return flops / (bytes / (gbs * 1e9)) / 1e9; }

}  // namespace livetune::cli
