// livetune: inspect the target, benchmark JIT kernels against the peers, check configs,
// serve simulated live traffic while the runtime tunes.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/livetune/commands.hpp"

namespace {

const char* kUsage = R"(usage: livetune <command> [options]

  info                                  target, features, caches, fingerprint, LLVM, FMA peak
  bench matmul --m M --n N --k K [--trans-b] [--bias] [--act relu|gelu] [--beta B]
               [--lda L] [--ldb L] [--ldc L] [--threads T]
               [--config TEXT | --search random:N | --search exhaustive [--config PARTIAL]]
               [--constant-b] [--peers openblas,onednn,...] [--seed S] [--json]
  check matmul --m M --n N --k K [workload options] [--configs N | --config TEXT] [--seed S]
  serve matmul --m M --n N --k K [workload options] [--calls C] [--callers T] [--threads T]
               [--budget F] [--frozen] [--cache DIR] [--reference random:N|exhaustive]
               [--plot FILE.svg] [--seed S] [--json]

  check and serve take a range of M too, --m LO..HI: check validates kernels of that bucket
  at the Ms that reach each edge tile; serve draws each call's M from it.
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "info") return livetune::cli::cmd_info(args);
    if (command == "bench" || command == "check" || command == "serve") {
      if (args.empty() || args[0] != "matmul") {
        std::fprintf(stderr, "livetune %s: expected an op (matmul)\n", command.c_str());
        return 2;
      }
      args.erase(args.begin());
      if (command == "serve") return livetune::cli::cmd_serve(args);
      return command == "bench" ? livetune::cli::cmd_bench(args) : livetune::cli::cmd_check(args);
    }
    std::fprintf(stderr, "livetune: unknown command '%s'\n%s", command.c_str(), kUsage);
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "livetune %s: %s\n", command.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "livetune %s: error: %s\n", command.c_str(), e.what());
    return 1;
  }
}
