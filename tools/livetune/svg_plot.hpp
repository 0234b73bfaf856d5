#pragma once
// The latency of every call of `livetune serve` as an SVG a person can open in a browser:
// one point per call, and a marked line where the kernel in use changed.
#include <string>
#include <vector>

namespace livetune::cli {

struct KernelChange {
  size_t call = 0;     // the first call that could have run the new kernel
  std::string label;   // e.g. "JIT: mr=6 nr=64 ..."
};

std::string latency_svg(const std::string& title, const std::vector<double>& per_call_us,
                        const std::vector<KernelChange>& changes);

}  // namespace livetune::cli
