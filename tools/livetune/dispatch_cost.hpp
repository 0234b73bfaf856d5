#pragma once
// What a call through Runtime::matmul costs beyond a direct call of the same compiled kernel,
// on a 4×4×4 workload where the kernel itself takes a few nanoseconds.
namespace livetune::cli {

enum class DispatchPath {
  frozen,   // tuning off: the lookup and the kernel
  settled,  // tuned on live calls until settled: the lookup, the settled check, the drift sampling
};

double measure_dispatch_ns(DispatchPath path = DispatchPath::frozen);

}  // namespace livetune::cli
