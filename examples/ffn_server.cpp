// The main demo: a small inference server. Request threads run a transformer feed-forward
// block, y = gelu(x·W1 + b1)·W2 + b2, on batches of varying size (1-4 sequences of 24-64
// tokens: rows from 24 to 256), through one Runtime that tunes every matmul workload on the
// live requests; rows that vary share the workloads of their buckets (powers of two). It ends
// with the runtime's stats table and a plot of every request's latency (ffn_latency.svg). Run
// it twice: the second process starts each workload from what the first one recorded.
//   ffn_server [requests per thread = 400] [threads = 2] [plot file = ffn_latency.svg]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "livetune/livetune.hpp"
#include "tools/livetune/kernel_watch.hpp"
#include "tools/livetune/svg_plot.hpp"

namespace {

constexpr int64_t kModel = 512, kHidden = 2048;
constexpr int64_t kMaxBatch = 4, kMinSequence = 24, kMaxSequence = 64;

std::vector<float> random_matrix(size_t count, std::mt19937& rng, float scale) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(count);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::atoi(argv[1]) : 400;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const std::string plot = argc > 3 ? argv[3] : "ffn_latency.svg";
  if (requests < 1 || threads < 1) {
    std::fprintf(stderr, "usage: ffn_server [requests per thread >= 1] [threads >= 1] [plot file]\n");
    return 2;
  }
  using livetune::TensorView;
  std::mt19937 rng(1);
  // The layer's weights, constant for the server's life: packed once per kernel layout.
  const std::vector<float> w1 = random_matrix(kModel * kHidden, rng, 0.05f), b1 = random_matrix(kHidden, rng, 0.1f);
  const std::vector<float> w2 = random_matrix(kHidden * kModel, rng, 0.05f), b2 = random_matrix(kModel, rng, 0.1f);
  const livetune::ConstantMatrix W1(TensorView::matrix(w1.data(), kModel, kHidden));
  const livetune::ConstantMatrix W2(TensorView::matrix(w2.data(), kHidden, kModel));
  const TensorView B1 = TensorView::vector(b1.data(), kHidden), B2 = TensorView::vector(b2.data(), kModel);

  livetune::RuntimeOptions options;
  options.threads = 1;  // one core per request; the requests run side by side
  livetune::Runtime rt(options);

  std::vector<double> latency_us(size_t(requests) * size_t(threads));
  std::atomic<size_t> done{0};
  // Where the plot marks each kernel change: the requests started by then.
  std::atomic<int64_t> started{0};
  livetune::cli::KernelWatch watch(rt, started);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> servers;
  for (int t = 0; t < threads; ++t)
    servers.emplace_back([&, t] {
      std::mt19937 r(uint32_t(100 + t));
      const int64_t max_rows = kMaxBatch * kMaxSequence;
      std::uniform_int_distribution<int64_t> batch(1, kMaxBatch), sequence(kMinSequence, kMaxSequence);
      const std::vector<float> x = random_matrix(size_t(max_rows * kModel), r, 1.0f);
      std::vector<float> h(size_t(max_rows * kHidden)), y(size_t(max_rows * kModel));
      livetune::MatmulOptions up, down;
      up.bias = &B1;
      up.activation = livetune::Activation::gelu;
      down.bias = &B2;
      for (int i = 0; i < requests; ++i) {
        const int64_t rows = batch(r) * sequence(r);
        started.fetch_add(1);
        const auto begin = std::chrono::steady_clock::now();
        rt.matmul(TensorView::matrix(x.data(), rows, kModel), W1, TensorView::matrix(h.data(), rows, kHidden), up);
        rt.matmul(TensorView::matrix(h.data(), rows, kHidden), W2, TensorView::matrix(y.data(), rows, kModel), down);
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
        latency_us[done.fetch_add(1)] = us;
        if (i == 0) watch.begin();
      }
    });
  for (auto& s : servers) s.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rt.wait_idle();
  const std::vector<livetune::cli::KernelChange> changes =
      livetune::cli::plot_marks(watch.stop(), latency_us.size() - 1);

  std::printf("served %zu requests on %d threads in %.2f s (FFN %lldx%lld, batches of 1-%lld x %lld-%lld tokens)\n\n",
              latency_us.size(), threads, seconds, static_cast<long long>(kModel), static_cast<long long>(kHidden),
              static_cast<long long>(kMaxBatch), static_cast<long long>(kMinSequence),
              static_cast<long long>(kMaxSequence));
  std::printf("%s\n", rt.stats().table().c_str());
  std::vector<double> sorted = latency_us;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  std::printf("request latency: median %.0f us, p90 %.0f us, p99 %.0f us; first 50 requests median %.0f us\n",
              sorted[n / 2], sorted[n * 9 / 10], sorted[n * 99 / 100],
              [&] {
                std::vector<double> head(latency_us.begin(), latency_us.begin() + std::min<size_t>(50, n));
                std::sort(head.begin(), head.end());
                return head[head.size() / 2];
              }());
  std::ofstream out(plot);
  out << livetune::cli::latency_svg("ffn_server: request latency, " + std::to_string(threads) +
                                        " request threads, live tuning",
                                    latency_us, changes);
  if (!out) {
    std::fprintf(stderr, "ffn_server: cannot write the plot to '%s'\n", plot.c_str());
    return 1;
  }
  std::printf("plot: %s (%zu kernel changes marked)\n", plot.c_str(), changes.size());
  return 0;
}
