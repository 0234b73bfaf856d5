#include "tools/livetune/problem.hpp"

#include <random>
#include <stdexcept>

namespace livetune::cli {

const std::set<std::string> kWorkloadSwitches = {"trans-b", "bias"};
const std::set<std::string> kWorkloadValued = {"m", "n", "k", "act", "beta", "lda", "ldb", "ldc"};

Workload workload_from(const Args& args) {
  for (const char* dim : {"m", "n", "k"})
    if (!args.has(dim)) throw std::invalid_argument(std::string("--") + dim + " is required");
  std::string text = "matmul m=" + args.get("m") + " n=" + args.get("n") + " k=" + args.get("k") +
                     " trans_b=" + (args.has("trans-b") ? "1" : "0") + " bias=" + (args.has("bias") ? "1" : "0") +
                     " act=" + args.get("act", "none");
  for (const char* ld : {"lda", "ldb", "ldc", "beta"})
    if (args.has(ld)) text += std::string(" ") + ld + "=" + args.get(ld);
  return Workload::parse(text);
}

Problem::Problem(const Workload& wl, uint64_t seed) : w(wl) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](std::vector<float>& v, int64_t n) {
    v.resize(size_t(n));
    for (float& x : v) x = dist(rng);
  };
  fill(a, w.m * w.lda);
  fill(b, w.b_rows() * w.ldb);
  fill(bias, w.n);
  fill(c, w.m * w.ldc);
}

}  // namespace livetune::cli
