#pragma once
// A vector of floats whose data starts on a 64-byte line, as BLAS benchmarks and tensor
// libraries allocate operands: where malloc puts a buffer (16 bytes past a line, and for
// large ones 16 bytes past a page) decides whether vector loads and stores cross lines, which
// moved one kernel by 20% on AVX2 between runs.
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace livetune {

template <class T>
struct LineAllocator {
  using value_type = T;
  LineAllocator() = default;
  template <class U>
  LineAllocator(const LineAllocator<U>&) {}
  T* allocate(size_t n) {
    void* p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <class U>
  bool operator==(const LineAllocator<U>&) const {
    return true;
  }
};

using Floats = std::vector<float, LineAllocator<float>>;

}  // namespace livetune
