#include "sampler/compile_batch.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "jit/compile.hpp"

namespace livetune {

std::vector<Compiled> compile_and_validate(const ValidationData& data, const std::vector<Config>& configs,
                                           int threads) {
  std::vector<Compiled> out(configs.size());
  auto one = [&](size_t i) {
    out[i].config = configs[i];
    try {
      KernelPtr k = compile_gemm(data.workload(), configs[i]);
      out[i].error = data.check(*k);
      if (out[i].error.empty()) out[i].kernel = std::move(k);
    } catch (const std::exception& e) {
      out[i].error = e.what();
    }
  };
  if (threads <= 1 || configs.size() <= 1) {
    for (size_t i = 0; i < configs.size(); ++i) one(i);
    return out;
  }
  tbb::task_arena arena(threads);
  arena.execute([&] { tbb::parallel_for(size_t(0), configs.size(), one); });
  return out;
}

}  // namespace livetune
