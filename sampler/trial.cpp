#include "sampler/trial.hpp"

#include <algorithm>

namespace livetune {

Trial::Trial(const Kernel* incumbent, const Kernel* candidate, int pairs)
    : incumbent_(incumbent), candidate_(candidate), pairs_(std::clamp(pairs, 1, kMaxPairs)) {}

// Sequentially consistent on both sides (enter/close against idle): a caller either sees the
// stage closed, or the sampler sees the caller inside — never neither.
bool Trial::enter() {
  inside_.fetch_add(1, std::memory_order_seq_cst);
  if (!closed_.load(std::memory_order_seq_cst)) return true;
  inside_.fetch_sub(1, std::memory_order_release);
  return false;
}

void Trial::leave() { inside_.fetch_sub(1, std::memory_order_release); }

void Trial::close() { closed_.store(true, std::memory_order_seq_cst); }

bool Trial::idle() const {
  return closed_.load(std::memory_order_seq_cst) && inside_.load(std::memory_order_seq_cst) == 0;
}

// Pair p runs the candidate first when p is odd.
bool Trial::candidate_slot(int slot) const { return (slot % 2 == 0) == ((slot / 2) % 2 == 1); }

Trial::Slot Trial::take() {
  if (next_.load(std::memory_order_relaxed) >= 2 * pairs_) return {};
  const int slot = next_.fetch_add(1, std::memory_order_relaxed);
  if (slot >= 2 * pairs_) return {};
  return {slot, candidate_slot(slot) ? candidate_ : incumbent_};
}

bool Trial::record(int slot, double seconds) {
  seconds_[size_t(slot)] = seconds;
  return filled_.fetch_add(1, std::memory_order_acq_rel) + 1 == 2 * pairs_;
}

bool Trial::full() const { return filled_.load(std::memory_order_acquire) == 2 * pairs_; }

std::vector<double> Trial::incumbent_seconds() const {
  std::vector<double> out;
  for (int s = 0; s < 2 * pairs_; ++s)
    if (!candidate_slot(s)) out.push_back(seconds_[size_t(s)]);
  return out;
}

std::vector<double> Trial::candidate_seconds() const {
  std::vector<double> out;
  for (int s = 0; s < 2 * pairs_; ++s)
    if (candidate_slot(s)) out.push_back(seconds_[size_t(s)]);
  return out;
}

}  // namespace livetune
