#pragma once
// Which kernel each workload of a Runtime is using, sampled from a thread of its own while
// traffic runs: where a latency plot marks the changes. A change is placed at the calls made
// when the sample saw it, at most a sampling period late.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "livetune/runtime.hpp"
#include "tools/livetune/svg_plot.hpp"

namespace livetune::cli {

class KernelWatch {
 public:
  struct Change {
    size_t call = 0;  // calls made (started) when it was seen
    std::string workload, config;
    bool first = false;  // the workload's first JIT kernel
  };

  // Counts calls in `calls_made`. Quiet until begin(): the first call, whose latency is a
  // result, should not share the machine with it.
  KernelWatch(const Runtime& rt, const std::atomic<int64_t>& calls_made);
  ~KernelWatch();
  KernelWatch(const KernelWatch&) = delete;
  KernelWatch& operator=(const KernelWatch&) = delete;

  // Starts sampling (traffic calls it after its first call; calls after the first are no-ops).
  void begin();
  // Ends the sampling (after one last sample) and returns the changes in the order seen.
  std::vector<Change> stop();

 private:
  void sample();

  const Runtime& rt_;
  const std::atomic<int64_t>& calls_made_;
  std::atomic<bool> begun_{false}, done_{false};
  std::vector<Change> changes_;
  std::vector<std::pair<std::string, std::string>> in_use_;  // workload, config
  std::thread thread_;
};

// The marks of a plot: "JIT: <config>" and "promoted: <config>"; of several workloads, their
// sizes and "JIT" or "promoted".
std::vector<KernelChange> plot_marks(const std::vector<KernelWatch::Change>& changes, size_t last_call);

}  // namespace livetune::cli
