#pragma once
// A B operand the caller keeps constant (a layer's weights): packed once for each layout of
// the kernels that read it. Calls find the packed copy without a lock; a layout not packed
// yet is claimed by one call and packed in the background, while calls go on packing B
// themselves as before, so none waits for it. At most kLayouts copies are kept: when they are
// all taken, a new layout replaces the copy least recently used, once no call has used it
// since the previous replacement attempt (tuning tries candidates of many layouts; the copies
// of dropped ones would otherwise hold the slots, and the memory, for good).
#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/kernel.hpp"

namespace livetune {

class ConstantOperand {
 public:
  static constexpr size_t kLayouts = 8;

  explicit ConstantOperand(const float* b) : b_(b) {}
  ~ConstantOperand();
  ConstantOperand(const ConstantOperand&) = delete;
  ConstantOperand& operator=(const ConstantOperand&) = delete;

  struct Packed;
  struct Lookup {
    const float* data = nullptr;  // the packed copy, when ready
    Packed* to_pack = nullptr;     // set for the one caller that must now pack (in the background)
  };
  // For a kernel that takes B packed (k.takes_packed_b()). The copy returned stays alive until this
  // thread's next find() or done_reading().
  Lookup find(const Kernel& k);
  static void done_reading();
  void pack(Packed* p, const Kernel& k);
  size_t copies() const;  // layouts held now

 private:
  Lookup claim(const Kernel& k);
  void free_retired();  // with replace_ held

  const float* b_;
  std::array<std::atomic<Packed*>, kLayouts> slots_{};
  // The hash of each slot's layout, so that a call announces (a fenced store) only the slot
  // that may be its own. Written before the slot; a stale one only costs a string compare.
  std::array<std::atomic<size_t>, kLayouts> hashes_{};
  std::atomic<uint64_t> clock_{0};  // advanced by each replacement attempt; copies keep the last seen
  std::mutex replace_;              // claims and replacements: never waited for (try_lock)
  std::vector<Packed*> retired_;    // replaced, freed once no thread reads them
};

}  // namespace livetune
