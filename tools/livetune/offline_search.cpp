#include "tools/livetune/offline_search.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>
#include <stdexcept>

#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "policy/default_rule.hpp"
#include "tools/measure/measure.hpp"

namespace livetune::cli {
namespace {

constexpr size_t kRunnersUp = 12;
constexpr size_t kExhaustiveLimit = 20000;

// Seconds per call, quickly: one timed call, and the median of three short batches only for
// a variant within reach of the best so far (racing: a clearly slower one is not worth more).
double screen(const std::function<void()>& fn, double best_so_far) {
  fn();  // first call: page faults and cold caches
  const auto start = std::chrono::steady_clock::now();
  fn();
  const double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (once > 1.5 * best_so_far) return once;
  MeasureOptions mo;
  mo.warmup_s = 0.002;
  mo.sample_s = 0.003;
  mo.samples = 3;
  mo.wait_quiet = false;
  return measure_interleaved({fn}, mo)[0].median_s;
}

}  // namespace

std::vector<Config> configs_to_try(const Workload& w, int threads, const std::string& search, const std::string& config,
                                   uint64_t seed) {
  const Space space = gemm_space(w, Target::host());
  if (search == "exhaustive") return space.enumerate(config, kExhaustiveLimit);
  if (!config.empty()) {
    if (!search.empty()) throw std::invalid_argument("--config with --search: only with --search exhaustive");
    return {space.parse(config)};
  }
  std::vector<Config> configs{default_gemm_config(w, Target::host(), threads)};
  if (search.empty()) return configs;
  if (search.rfind("random:", 0) != 0)
    throw std::invalid_argument("--search: expected random:N or exhaustive, got '" + search + "'");
  int64_t n = 0;
  try {
    n = std::stoll(search.substr(7));
  } catch (const std::exception&) {
    throw std::invalid_argument("--search: expected random:N with a number N, got '" + search + "'");
  }
  std::mt19937_64 rng(seed);
  for (Config& c : space.sample_distinct(rng, size_t(std::max<int64_t>(n, 0))))
    if (!(c == configs[0])) configs.push_back(std::move(c));
  return configs;
}


std::vector<std::pair<double, KernelPtr>> rank_kernels(const std::vector<KernelPtr>& kernels,
                                                       const Floats& c_init, const CallMaker& call,
                                                       size_t keep) {
  std::vector<std::pair<double, KernelPtr>> ranked;
  const auto faster = [](const auto& x, const auto& y) { return x.first < y.first; };
  double best_so_far = std::numeric_limits<double>::infinity();
  for (const KernelPtr& k : kernels) {
    Floats c = c_init;
    const double s = screen(call(*k, c.data()), best_so_far);
    best_so_far = std::min(best_so_far, s);
    ranked.emplace_back(s, k);
  }
  std::sort(ranked.begin(), ranked.end(), faster);
  ranked.resize(std::min(ranked.size(), kRunnersUp));
  if (ranked.size() > keep) {
    std::vector<Floats> outputs(ranked.size(), c_init);
    std::vector<std::function<void()>> runners;
    for (size_t i = 0; i < ranked.size(); ++i) runners.push_back(call(*ranked[i].second, outputs[i].data()));
    MeasureOptions mo;
    mo.warmup_s = 0.005;
    mo.sample_s = 0.005;
    mo.samples = 5;
    mo.wait_quiet = false;
    const std::vector<Measurement> again = measure_interleaved(runners, mo);
    for (size_t i = 0; i < ranked.size(); ++i) ranked[i].first = again[i].median_s;
    std::sort(ranked.begin(), ranked.end(), faster);
  }
  ranked.resize(std::min(ranked.size(), keep));
  return ranked;
}

}  // namespace livetune::cli
