#pragma once
// The exploration budget of one workload: the time its calls spent in candidates beyond what
// the incumbent would have taken, as a share of all its call time. Signed: a candidate faster
// than the incumbent pays some of it back, since that is time the caller got back.
#include <cstdint>

namespace livetune {

class ExplorationBudget {
 public:
  explicit ExplorationBudget(double share, double reserve = kReserve) : share_(share), reserve_(reserve) {}
  // `calls` more calls served, at the incumbent's `seconds` each.
  void add_calls(uint64_t calls, double seconds) { total_ += double(calls) * seconds; }
  // What candidate calls took beyond their paired incumbent calls (may be negative).
  void add_extra(double seconds) {
    overhead_ += seconds;
    total_ += seconds;
  }
  double overhead_s() const { return overhead_; }
  double total_s() const { return total_; }
  double used() const { return total_ > 0 ? overhead_ / total_ : 0.0; }
  // Whether a stage expected to cost `extra` seconds more than the incumbent keeps the
  // overhead within the share, counted with the stage's own time — less the reserve, the part
  // of the share kept back for stages that cost more than expected (a call that meets a busy
  // machine): a tenth by default.
  static constexpr double kReserve = 0.1;
  // A bucket of M keeps back more: its pairs compare calls of different Ms, scaled to one, and
  // the overhead they add up to wanders further than on one shape.
  static constexpr double kBucketReserve = 0.3;
  bool allows(double extra) const { return overhead_ + extra <= usable() * (total_ + extra); }
  // How many more calls at `seconds` each until allows(extra); 0 if it does already.
  uint64_t calls_until(double extra, double seconds) const;

 private:
  double usable() const { return share_ * (1.0 - reserve_); }
  double share_;
  double reserve_;
  double overhead_ = 0.0;
  double total_ = 0.0;
};

}  // namespace livetune
