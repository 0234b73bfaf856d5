#include "tools/livetune/dispatch_cost.hpp"

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "livetune/runtime.hpp"
#include "tools/measure/measure.hpp"

namespace livetune::cli {

double measure_dispatch_ns(DispatchPath path) {
  RuntimeOptions options;
  options.threads = 1;
  options.persistent = false;
  options.tuning = path == DispatchPath::settled;
  options.exploration_budget = 1.0;  // settles in a fraction of a second: a call costs nanoseconds
  Runtime rt(options);
  std::vector<float> a(16, 0.5f), b(16, 0.25f), c(16, 0.0f);
  const auto av = TensorView::matrix(a.data(), 4, 4), bv = TensorView::matrix(b.data(), 4, 4),
             cv = TensorView::matrix(c.data(), 4, 4);
  rt.matmul(av, bv, cv);
  rt.wait_idle();
  auto info = rt.workloads();
  for (int batch = 0; path == DispatchPath::settled && info.at(0).tuning != "settled"; ++batch) {
    if (batch == 2000) throw std::runtime_error("the 4x4x4 workload did not settle in 2M calls");
    for (int i = 0; i < 1000; ++i) rt.matmul(av, bv, cv);
    rt.wait_idle();
    info = rt.workloads();
  }
  if (info.size() != 1 || info[0].state != "jit") throw std::runtime_error("the 4x4x4 workload got no JIT kernel");

  // The runtime's config compiled again: the same code, called directly.
  const Workload w = Workload::parse(info[0].workload);
  KernelPtr k = compile_gemm(w, gemm_space(w, Target::host()).parse(info[0].config));
  std::unique_ptr<float, decltype(&std::free)> ws(
      static_cast<float*>(std::aligned_alloc(64, size_t(k->workspace_floats + 16) * 4)), &std::free);
  const GemmArgs args{a.data(), b.data(), c.data(), nullptr, ws.get(), 0, k->tiles};

  MeasureOptions mo;
  mo.samples = 21;
  mo.sample_s = 0.01;
  auto m = measure_interleaved({[&] { k->run(args); }, [&] { rt.matmul(av, bv, cv); }}, mo);
  // The median of the differences within each round, not the difference of the medians: the
  // two samples of a round are taken back to back, so the host's drift between rounds cancels.
  std::vector<double> differences;
  for (size_t i = 0; i < m[0].samples_s.size(); ++i) differences.push_back(m[1].samples_s[i] - m[0].samples_s[i]);
  return median(differences) * 1e9;
}

}  // namespace livetune::cli
