#pragma once
// The parts of the stats JSON that `livetune serve` writes too.
#include "livetune/runtime.hpp"
#include "runtime/json.hpp"

namespace livetune {

// "candidates": {proposed, compiled, validated, measured, rejected, promoted}
void write_candidates(Json& j, const WorkloadInfo& w);
// One workload's object of the stats JSON.
void write_workload(Json& j, const WorkloadInfo& w);

}  // namespace livetune
