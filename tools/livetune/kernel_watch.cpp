#include "tools/livetune/kernel_watch.hpp"

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>

namespace livetune::cli {

KernelWatch::KernelWatch(const Runtime& rt, const std::atomic<int64_t>& calls_made)
    : rt_(rt), calls_made_(calls_made) {
  thread_ = std::thread([this] {
    begun_.wait(false);
    while (!done_.load()) {
      sample();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a sampling period, not a hand-off
    }
  });
}

KernelWatch::~KernelWatch() {
  if (thread_.joinable()) stop();
}

void KernelWatch::begin() {
  if (!begun_.exchange(true)) begun_.notify_all();
}

std::vector<KernelWatch::Change> KernelWatch::stop() {
  done_ = true;
  begin();  // traffic that never began must not leave the thread waiting
  thread_.join();
  sample();
  return changes_;
}

void KernelWatch::sample() {
  const int64_t at = calls_made_.load();
  for (const WorkloadInfo& info : rt_.workloads()) {
    if (info.config.empty()) continue;
    auto it = std::find_if(in_use_.begin(), in_use_.end(), [&](const auto& p) { return p.first == info.workload; });
    if (it != in_use_.end() && it->second == info.config) continue;
    changes_.push_back({size_t(std::max<int64_t>(at, 0)), info.workload, info.config, it == in_use_.end()});
    if (it == in_use_.end()) in_use_.emplace_back(info.workload, info.config);
    else it->second = info.config;
  }
}

namespace {

// "m=65..128 n=2048 k=512" of a workload's text: enough to tell a model's workloads apart.
std::string dims(const std::string& workload) {
  std::istringstream in(workload);
  std::string word, out;
  while (in >> word)
    if (word.rfind("m=", 0) == 0 || word.rfind("n=", 0) == 0 || word.rfind("k=", 0) == 0)
      out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

std::vector<KernelChange> plot_marks(const std::vector<KernelWatch::Change>& changes, size_t last_call) {
  std::set<std::string> workloads;
  for (const auto& c : changes) workloads.insert(c.workload);
  std::vector<KernelChange> marks;
  for (const auto& c : changes) {
    const std::string what = c.first ? "JIT" : "promoted";
    marks.push_back({std::min(c.call, last_call),
                     workloads.size() > 1 ? dims(c.workload) + ": " + what : what + ": " + c.config});
  }
  return marks;
}

}  // namespace livetune::cli
