#include "tools/measure/bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include <tbb/parallel_for.h>

#include "runtime/isa_dispatch.hpp"

namespace livetune {
namespace {

// Sums a buffer with eight independent vector accumulators of the ISA's width (64-byte ones on
// AVX2 were kept on the stack: 9 GB/s where a plain loop read 14), prefetching 8 KiB ahead or
// not: bound by how fast memory delivers, not by adds. Which reads faster depends on the machine (Zen 5: a plainer
// loop read up to a third slower than the GEMV kernels it is the roof of; Zen 3 the other way
// round), so the probe takes the faster.
template <class V, bool Prefetch>
[[gnu::always_inline]] inline float read_all_body(const float* data, int64_t floats) {
  constexpr int kLanes = int(sizeof(V) / sizeof(float)), kAcc = 8, kAhead = 8192 / int(sizeof(V));
  V s[kAcc] = {};
  const V* v = reinterpret_cast<const V*>(data);
  const int64_t n = floats / kLanes;
  for (int64_t i = 0; i + kAcc <= n; i += kAcc) {
    if constexpr (Prefetch)
      for (int line = 0; line < kAcc * int(sizeof(V)); line += 256)
        __builtin_prefetch(&v[i + kAhead] + line / sizeof(V), 0, 3);
    for (int a = 0; a < kAcc; ++a) s[a] += v[i + a];
  }
  V t = {};
  for (int a = 0; a < kAcc; ++a) t += s[a];
  float total = 0;
  for (int l = 0; l < kLanes; ++l) total += t[l];
  return total;
}

using ReadFn = float (*)(const float*, int64_t);
typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));

template <bool Prefetch>
ReadFn read_all_for_cpu() {
  struct Builds {
    LIVETUNE_ISA_AVX512 static float avx512(const float* d, int64_t n) { return read_all_body<V16, Prefetch>(d, n); }
    LIVETUNE_ISA_AVX2 static float avx2(const float* d, int64_t n) { return read_all_body<V8, Prefetch>(d, n); }
    static float generic(const float* d, int64_t n) { return read_all_body<V8, Prefetch>(d, n); }
  };
  return pick_for_cpu(&Builds::avx512, &Builds::avx2, &Builds::generic);
}

}  // namespace

ReadProbe::ReadProbe(int64_t bytes, int threads)
    : per_thread_(std::max<int64_t>(bytes / threads, 4096) / 256 * 256), sink_(size_t(threads)), arena_(threads) {
  for (int t = 0; t < threads; ++t) {
    float* p = static_cast<float*>(std::aligned_alloc(64, size_t(per_thread_)));
    if (!p) throw std::bad_alloc();
    std::fill(p, p + per_thread_ / 4, 1.0f);
    buffers_.emplace_back(p, &std::free);
  }
  // The faster of the two loops, by the median of five alternated reads each.
  const ReadFn loops[2] = {read_all_for_cpu<true>(), read_all_for_cpu<false>()};
  std::vector<double> seconds[2];
  for (int round = 0; round < 5; ++round)
    for (int i = 0; i < 2; ++i) {
      read_all_ = loops[i];
      const auto start = std::chrono::steady_clock::now();
      run();
      seconds[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  for (auto& s : seconds) std::sort(s.begin(), s.end());
  read_all_ = seconds[0][2] <= seconds[1][2] ? loops[0] : loops[1];
}

void ReadProbe::run() {
  const int threads = int(buffers_.size());
  if (threads == 1) {
    sink_[0] += read_all_(buffers_[0].get(), per_thread_ / 4);
    return;
  }
  arena_.execute([&] {
    tbb::parallel_for(0, threads, [&](int t) { sink_[size_t(t)] += read_all_(buffers_[size_t(t)].get(), per_thread_ / 4); },
                      tbb::static_partitioner());
  });
}

double memory_roof_gflops(double flops, double bytes, double gbs) { return flops / (bytes / (gbs * 1e9)) / 1e9; }

}  // namespace livetune
