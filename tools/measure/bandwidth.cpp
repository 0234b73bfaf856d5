#include "tools/measure/bandwidth.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include <tbb/parallel_for.h>

#include "runtime/isa_dispatch.hpp"

namespace livetune {
namespace {

typedef float V16 __attribute__((vector_size(64)));

// Sums a buffer with eight independent vector accumulators, prefetching 8 KiB ahead: bound by
// how fast memory delivers, not by adds or by the hardware prefetchers alone (a plainer loop
// read up to a third slower here than the GEMV kernels it is the roof of).
[[gnu::always_inline]] inline float read_all_body(const float* data, int64_t floats) {
  constexpr int kAcc = 8, kAhead = 128;  // vectors
  V16 s[kAcc] = {};
  const V16* v = reinterpret_cast<const V16*>(data);
  const int64_t n = floats / 16;
  for (int64_t i = 0; i + kAcc <= n; i += kAcc) {
    __builtin_prefetch(v + i + kAhead, 0, 3);
    __builtin_prefetch(v + i + kAhead + 4, 0, 3);
    for (int a = 0; a < kAcc; ++a) s[a] += v[i + a];
  }
  V16 t = {};
  for (int a = 0; a < kAcc; ++a) t += s[a];
  float total = 0;
  for (int l = 0; l < 16; ++l) total += t[l];
  return total;
}

LIVETUNE_ISA_AVX512 float read_all_avx512(const float* data, int64_t floats) { return read_all_body(data, floats); }
LIVETUNE_ISA_AVX2 float read_all_avx2(const float* data, int64_t floats) { return read_all_body(data, floats); }
float read_all_generic(const float* data, int64_t floats) { return read_all_body(data, floats); }
const auto read_all = pick_for_cpu(&read_all_avx512, &read_all_avx2, &read_all_generic);

}  // namespace

ReadProbe::ReadProbe(int64_t bytes, int threads)
    : per_thread_(std::max<int64_t>(bytes / threads, 4096) / 256 * 256), sink_(size_t(threads)), arena_(threads) {
  for (int t = 0; t < threads; ++t) {
    float* p = static_cast<float*>(std::aligned_alloc(64, size_t(per_thread_)));
    if (!p) throw std::bad_alloc();
    std::fill(p, p + per_thread_ / 4, 1.0f);
    buffers_.emplace_back(p, &std::free);
  }
}

void ReadProbe::run() {
  const int threads = int(buffers_.size());
  if (threads == 1) {
    sink_[0] += read_all(buffers_[0].get(), per_thread_ / 4);
    return;
  }
  arena_.execute([&] {
    tbb::parallel_for(0, threads, [&](int t) { sink_[size_t(t)] += read_all(buffers_[size_t(t)].get(), per_thread_ / 4); },
                      tbb::static_partitioner());
  });
}

double memory_roof_gflops(double flops, double bytes, double gbs) { return flops / (bytes / (gbs * 1e9)) / 1e9; }

}  // namespace livetune
