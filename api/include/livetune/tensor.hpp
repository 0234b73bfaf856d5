#pragma once
// A non-owning view of caller memory, shaped like DLPack's tensor so that interop is a copy
// of fields: data, shape and strides in elements, dtype, device.
#include <array>
#include <cstdint>

namespace livetune {

enum class DType : uint8_t { f32, f16, bf16 };
enum class DeviceKind : uint8_t { cpu, cuda };

struct Device {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
};

struct TensorView {
  static constexpr int kMaxRank = 4;

  void* data = nullptr;
  int rank = 0;
  std::array<int64_t, kMaxRank> shape{};
  std::array<int64_t, kMaxRank> strides{};  // in elements
  DType dtype = DType::f32;
  Device device{};

  // A row-major rows×cols f32 matrix whose rows are `ld` elements apart (ld = 0: cols).
  static TensorView matrix(const float* data, int64_t rows, int64_t cols, int64_t ld = 0) {
    TensorView t;
    t.data = const_cast<float*>(data);  // views are read or written as the op's contract says
    t.rank = 2;
    t.shape = {rows, cols, 0, 0};
    t.strides = {ld ? ld : cols, 1, 0, 0};
    return t;
  }
  static TensorView vector(const float* data, int64_t n) {
    TensorView t;
    t.data = const_cast<float*>(data);
    t.rank = 1;
    t.shape = {n, 0, 0, 0};
    t.strides = {1, 0, 0, 0};
    return t;
  }
};

}  // namespace livetune
