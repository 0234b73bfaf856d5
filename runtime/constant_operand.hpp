#pragma once
// A B operand the caller keeps constant (a layer's weights): packed once for each layout of
// the kernels that read it, and kept while the operand lives. Calls find the packed copy
// without a lock; a layout not packed yet is claimed by one call and packed in the
// background, while calls go on packing B themselves as before, so none waits for it.
#include <array>
#include <atomic>
#include <memory>
#include <string>

#include "jit/kernel.hpp"

namespace livetune {

class ConstantOperand {
 public:
  explicit ConstantOperand(const float* b) : b_(b) {}
  ~ConstantOperand();
  ConstantOperand(const ConstantOperand&) = delete;
  ConstantOperand& operator=(const ConstantOperand&) = delete;

  struct Packed;
  struct Lookup {
    const float* data = nullptr;  // the packed copy, when ready
    Packed* to_pack = nullptr;     // set for the one caller that must now pack (in the background)
  };
  // For a kernel that packs B (k.pack_b set).
  Lookup find(const Kernel& k);
  void pack(Packed* p, const Kernel& k);

 private:
  static constexpr size_t kLayouts = 8;  // beyond this many layouts, calls pack B themselves
  const float* b_;
  std::array<std::atomic<Packed*>, kLayouts> slots_{};
};

}  // namespace livetune
