// The smallest livetune program: one Runtime, one matmul with a fused bias + GELU epilogue on
// constant weights. The first call is served at once by the built-in kernel; a kernel
// specialised to this shape is compiled in the background and serves the later calls, which
// read the weights packed once.
#include <livetune/livetune.hpp>

#include <cstdio>
#include <vector>

int main() {
  const int64_t m = 96, n = 1536, k = 384;
  std::vector<float> x(m * k, 0.01f), w(k * n, 0.02f), bias(n, 0.1f), y(m * n);

  livetune::Runtime rt;
  livetune::MatmulOptions opts;
  const auto bias_view = livetune::TensorView::vector(bias.data(), n);
  opts.bias = &bias_view;
  opts.activation = livetune::Activation::gelu;

  const livetune::ConstantMatrix weights(livetune::TensorView::matrix(w.data(), k, n));
  for (int call = 0; call < 100; ++call)
    rt.matmul(livetune::TensorView::matrix(x.data(), m, k), weights, livetune::TensorView::matrix(y.data(), m, n), opts);

  rt.wait_idle();
  for (const auto& info : rt.workloads())
    std::printf("%s\n  state %s, config %s, compiled in %.1f ms\n", info.workload.c_str(), info.state.c_str(),
                info.config.c_str(), info.compile_ms);
  std::printf("y[0] = %.6f\n", y[0]);
  return 0;
}
