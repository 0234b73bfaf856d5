#pragma once
// One stage of racing a candidate against the incumbent on live calls: a fixed number of
// call slots, taken by callers in turn. The two calls of a pair run one kernel each, in an
// order that alternates from pair to pair, so that the comparison is paired in time on a
// machine that drifts. Callers never lock or wait: entering is one atomic increment, and a
// full or closed stage sends them back to the incumbent.
#include <array>
#include <atomic>
#include <limits>
#include <vector>

#include "jit/kernel.hpp"

namespace livetune {

class Trial {
 public:
  static constexpr int kMaxPairs = 16;
  // candidate == incumbent: a baseline stage, which only times the incumbent.
  Trial(const Kernel* incumbent, const Kernel* candidate, int pairs);
  Trial(const Trial&) = delete;
  Trial& operator=(const Trial&) = delete;

  // A caller counts itself in before taking a slot and out after its call; false (and not
  // counted) when the stage is closed. While a caller is in, the stage's kernels stay alive.
  bool enter();
  void leave();
  struct Slot {
    int index = -1;  // -1: none left
    const Kernel* kernel = nullptr;
  };
  Slot take();
  // Records the call's time; true for the call that filled the last slot (it hands the
  // stage to the sampler). kVoid: the slot's kernel could not run fairly (the incumbent ran
  // instead); its pair does not count.
  static constexpr double kVoid = std::numeric_limits<double>::quiet_NaN();
  bool record(int slot, double seconds);

  // The sampler's side. After close(), no caller enters again; idle() then says when the
  // last one has left, after which the candidate may be freed.
  void close();
  bool idle() const;
  bool full() const;
  const Kernel* candidate() const { return candidate_; }
  // Per pair, in order (only once full()).
  std::vector<double> incumbent_seconds() const;
  std::vector<double> candidate_seconds() const;

 private:
  bool candidate_slot(int slot) const;

  const Kernel* incumbent_;
  const Kernel* candidate_;
  const int pairs_;
  std::atomic<int> next_{0};
  std::atomic<int> filled_{0};
  std::atomic<int> inside_{0};
  std::atomic<bool> closed_{false};
  std::array<double, 2 * kMaxPairs> seconds_{};
};

}  // namespace livetune
