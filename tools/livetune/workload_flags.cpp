#include "tools/livetune/workload_flags.hpp"

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

}  // namespace livetune::cli
