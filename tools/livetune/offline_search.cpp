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

// Candidates screened between two screens of the reference kernel.
constexpr size_t kReferenceEvery = 4;

// Seconds per call, quickly: one timed call, and the median of three short batches unless
// `clearly_slower` says that one call was enough (racing: a clearly slower variant is not
// worth more calls).
double screen(const std::function<void()>& fn, const std::function<bool(double)>& clearly_slower) {
  fn();  // first call: page faults and cold caches
  const auto start = std::chrono::steady_clock::now();
  fn();
  const double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (clearly_slower(once)) return once;
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
    // Several configs, separated by ';', to measure side by side.
    std::vector<Config> listed;
    for (size_t start = 0; start <= config.size();) {
      const size_t end = std::min(config.find(';', start), config.size());
      if (config.find_first_not_of(' ', start) < end) listed.push_back(space.parse(config.substr(start, end - start)));
      start = end + 1;
    }
    if (listed.empty()) throw std::invalid_argument("--config: expected a config, got '" + config + "'");
    return listed;
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


std::vector<KernelPtr> rank_kernels(const std::vector<KernelPtr>& kernels, const Floats& c_init, const CallMaker& call,
                                    size_t keep) {
  if (kernels.empty()) return {};
  std::vector<std::pair<double, KernelPtr>> ranked;  // time (relative, then seconds), kernel
  const auto faster = [](const auto& x, const auto& y) { return x.first < y.first; };
  // The screen: each variant's time over the reference kernel's (the first: the default
  // config) screened just before and after its group. The host's phases last seconds and move
  // every kernel's time by up to 20%: times taken one variant after another ranked lucky
  // variants first, and the dozen measured again could miss the best.
  Floats ref_c = c_init;
  const std::function<void()> reference = call(*kernels.front(), ref_c.data());
  const auto never = [](double) { return false; };
  double ref_before = screen(reference, never), best_ratio = std::numeric_limits<double>::infinity();
  ranked.emplace_back(1.0, kernels.front());
  for (size_t group = 1; group < kernels.size(); group += kReferenceEvery) {
    std::vector<std::pair<double, KernelPtr>> times;
    for (size_t i = group; i < std::min(kernels.size(), group + kReferenceEvery); ++i) {
      Floats c = c_init;
      const auto clearly_slower = [&](double once) { return once > 1.5 * best_ratio * ref_before; };
      times.emplace_back(screen(call(*kernels[i], c.data()), clearly_slower), kernels[i]);
    }
    const double ref_after = screen(reference, never), ref = 0.5 * (ref_before + ref_after);
    for (auto& [seconds, k] : times) {
      ranked.emplace_back(seconds / ref, k);
      best_ratio = std::min(best_ratio, seconds / ref);
    }
    ref_before = ref_after;
  }
  std::sort(ranked.begin(), ranked.end(), faster);
  ranked.resize(std::min(ranked.size(), std::max(kRunnersUp, keep)));
  // The reference is kept throughout: the default config must not be lost to a noisy screen
  // (at 64³ the finalists once were five variants 13% slower than it).
  const auto keep_reference = [&] {
    if (std::none_of(ranked.begin(), ranked.end(), [&](const auto& r) { return r.second == kernels.front(); }))
      ranked.back() = {1.0, kernels.front()};
  };
  keep_reference();
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
  keep_reference();
  std::vector<KernelPtr> out;
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

}  // namespace livetune::cli
