#pragma once
// What a call through Runtime::matmul costs beyond a direct call of the same compiled kernel,
// on a 4×4×4 workload where the kernel itself takes a few nanoseconds.
namespace livetune::cli {

double measure_dispatch_ns();

}  // namespace livetune::cli
