#include "tools/measure/bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <new>
#include <vector>

#include <tbb/parallel_for.h>

#include "runtime/isa_dispatch.hpp"

namespace livetune {
namespace {

// Sums a buffer with eight independent vector accumulators of the ISA's width (64-byte ones on
// AVX2 were kept on the stack: 9 GB/s where a plain loop read 14): bound by how fast memory
// delivers, not by adds. The buffer is read as `Streams` equal segments side by side, each
// prefetched `Ahead` bytes ahead (0: not) into L1 (locality 3) or L2 (2). Which reads fastest
// depends on the machine (Zen 5: a plainer loop read up to a third slower than the GEMV
// kernels it is the roof of; Zen 3 the other way round; Zen 4: one stream 20–25 GB/s, four or
// eight 25–29, and the GEMV kernels, reading several rows at once, 1.17–1.47x a one-stream
// roof), so the probe takes the fastest: a roof is what the machine can do, not one loop.
template <class V, int Streams, int Ahead, int Locality>
[[gnu::always_inline]] inline float read_all_body(const float* data, int64_t floats) {
  constexpr int kLanes = int(sizeof(V) / sizeof(float)), kAcc = 8, kPer = kAcc / Streams;
  constexpr int kAhead = Ahead / int(sizeof(V));
  static_assert(kAcc % Streams == 0);
  V s[kAcc] = {};
  const int64_t n = floats / kLanes / Streams;  // vectors per segment
  const V* seg[Streams];
  for (int t = 0; t < Streams; ++t) seg[t] = reinterpret_cast<const V*>(data) + t * n;
  for (int64_t i = 0; i + kPer <= n; i += kPer)
    for (int t = 0; t < Streams; ++t) {
      if constexpr (Ahead > 0)
        for (int line = 0; line < kPer * int(sizeof(V)); line += 256)
          __builtin_prefetch(&seg[t][i + kAhead] + line / sizeof(V), 0, Locality);
      for (int a = 0; a < kPer; ++a) s[t * kPer + a] += seg[t][i + a];
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

template <int Streams, int Ahead = 0, int Locality = 3>
ReadFn read_all_for_cpu() {
  struct Builds {
    LIVETUNE_ISA_AVX512 static float avx512(const float* d, int64_t n) {
      return read_all_body<V16, Streams, Ahead, Locality>(d, n);
    }
    LIVETUNE_ISA_AVX2 static float avx2(const float* d, int64_t n) { return read_all_body<V8, Streams, Ahead, Locality>(d, n); }
    static float generic(const float* d, int64_t n) { return read_all_body<V8, Streams, Ahead, Locality>(d, n); }
  };
  return pick_for_cpu(&Builds::avx512, &Builds::avx2, &Builds::generic);
}

}  // namespace

ReadProbe::ReadProbe(int64_t bytes, int threads)
    // Whole 4 KiB pages, so that every read loop covers the buffer to its last byte.
    : per_thread_(std::max<int64_t>(bytes / threads, 4096) / 4096 * 4096), sink_(size_t(threads)), arena_(threads) {
  for (int t = 0; t < threads; ++t) {
    float* p = static_cast<float*>(std::aligned_alloc(64, size_t(per_thread_)));
    if (!p) throw std::bad_alloc();
    std::fill(p, p + per_thread_ / 4, 1.0f);
    buffers_.emplace_back(p, &std::free);
  }
  // The fastest of the loops, by the median of five alternated reads each.
  // The last reads like the GEMV kernels: a few rows side by side, 1 KiB ahead fetched into L2.
  const ReadFn loops[] = {read_all_for_cpu<1, 8192>(), read_all_for_cpu<1>(), read_all_for_cpu<4>(), read_all_for_cpu<8>(),
                          read_all_for_cpu<8, 1024, 2>()};
  constexpr size_t kLoops = std::size(loops);
  std::vector<double> seconds[kLoops];
  for (int round = 0; round < 5; ++round)
    for (size_t i = 0; i < kLoops; ++i) {
      read_all_ = loops[i];
      const auto start = std::chrono::steady_clock::now();
      run();
      seconds[i].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  size_t fastest = 0;
  for (size_t i = 0; i < kLoops; ++i) {
    std::sort(seconds[i].begin(), seconds[i].end());
    if (seconds[i][2] < seconds[fastest][2]) fastest = i;
  }
  read_all_ = loops[fastest];
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
