#include <llvm/Config/llvm-config.h>

#include <cstdio>

#include "jit/target.hpp"
#include "runtime/json.hpp"
#include "tools/livetune/args.hpp"
#include "tools/livetune/commands.hpp"
#include "tools/livetune/fma_peak.hpp"

namespace livetune::cli {

int cmd_info(const std::vector<std::string>& argv) {
  Args args(argv, {"json"}, {});
  const Target& t = Target::host();
  const double peak1 = measure_fma_peak_gflops(1);
  const double peak_all = measure_fma_peak_gflops(t.cores);
  std::string features;
  for (const auto& f : t.features) features += (features.empty() ? "" : " ") + f;
  if (args.has("json")) {
    Json j;
    j.begin_object()
        .field("triple", t.triple)
        .field("cpu", t.cpu)
        .field("isa", t.avx512 ? "avx512" : t.avx2 ? "avx2" : "generic")
        .field("amx", t.amx)
        .field("cores", t.cores)
        .field("l1d_bytes", t.l1d_bytes)
        .field("l2_bytes", t.l2_bytes)
        .field("l3_bytes", t.l3_bytes)
        .field("fingerprint", t.fingerprint())
        .field("llvm", LLVM_VERSION_STRING)
        .field("features", features)
        .field("peak_gflops_1thread", peak1)
        .field("peak_gflops", peak_all)
        .end_object();
    std::printf("%s\n", j.str().c_str());
    return 0;
  }
  std::printf("target       %s\n", t.describe().c_str());
  std::printf("fingerprint  %s\n", t.fingerprint().c_str());
  std::printf("LLVM         %s\n", LLVM_VERSION_STRING);
  std::printf("vector       %d floats, %d registers%s\n", t.vector_floats(), t.vector_registers(),
              t.zmm_in_halves ? ", 512-bit operations in two halves" : "");
  std::printf("FMA peak     %.1f GFLOP/s on 1 thread, %.1f on %d\n", peak1, peak_all, t.cores);
  std::printf("features     %s\n", features.c_str());
  return 0;
}

}  // namespace livetune::cli
