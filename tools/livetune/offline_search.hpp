#pragma once
// The offline search that `livetune bench` runs and `livetune serve --reference` compares the
// online tuner with: the configs to try (--config, --search random:N | exhaustive) and a
// ranking of compiled kernels by speed.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "jit/floats.hpp"
#include "jit/kernel.hpp"

namespace livetune::cli {

// `search`: empty, random:N or exhaustive; `config`: configs' texts separated by ';', or with exhaustive
// the knobs to hold (empty: none). The default config first (unless a config or an
// exhaustive search choose), then the search's.
std::vector<Config> configs_to_try(const Workload& w, int threads, const std::string& search, const std::string& config,
                                   uint64_t seed);

// One call of kernel k writing into c.
using CallMaker = std::function<std::function<void()>(const Kernel& k, float* c)>;
// The `keep` fastest kernels, fastest first: a one-call screen of every kernel relative to the
// first (the reference, the default config), a few more calls for those within reach of the
// best, then the best dozen and the reference measured again side by side; the reference is
// among those returned.
std::vector<KernelPtr> rank_kernels(const std::vector<KernelPtr>& kernels,
                                                       const Floats& c_init, const CallMaker& call,
                                                       size_t keep);

}  // namespace livetune::cli
