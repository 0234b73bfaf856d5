#pragma once
// Turning a matmul call's arguments into a Workload, or a livetune::Error naming the first
// bad argument. The checks are one template: inlined into the call path as plain compares
// (Explain = false: they were a quarter of a 4x4x4 call through the runtime when out of
// line), and run again to name what is wrong only when one fails (Explain = true, cold).
#include <cmath>
#include <cstdint>
#include <string>

#include "jit/workload.hpp"
#include "livetune/runtime.hpp"

namespace livetune {
namespace matmul_args {

[[noreturn, gnu::cold]] void fail(const char* argument, const std::string& what);
[[gnu::cold]] std::string shape_text(const TensorView& t);
[[noreturn, gnu::cold]] void explain(const TensorView& a, const TensorView& b, const TensorView& c,
                                     const MatmulOptions& opts);

// Bytes [begin, end) that a checked view of rank Rank can touch; empty if it has no element.
struct Extent {
  uintptr_t begin, end;
};

template <int Rank>
[[gnu::always_inline]] inline Extent extent(const TensorView& t) {
  const auto begin = reinterpret_cast<uintptr_t>(t.data);
  int64_t last = 0;
  for (int i = 0; i < Rank; ++i) {
    if (t.shape[size_t(i)] == 0) return {begin, begin};
    last += (t.shape[size_t(i)] - 1) * t.strides[size_t(i)];
  }
  return {begin, begin + uintptr_t(last + 1) * sizeof(float)};
}

inline bool overlap(const Extent& x, const Extent& y) { return x.begin < y.end && y.begin < x.end; }

// What every tensor argument needs: data, dtype, device, rank, row-major strides.
template <bool Explain, int Rank>
bool check_tensor(const char* name, const TensorView& t) {
  auto bad = [&](auto&& what) {
    if constexpr (Explain) fail(name, what());
    return false;
  };
  if (!t.data) return bad([] { return "expected non-null data"; });
  if (t.dtype != DType::f32) return bad([] { return "expected dtype f32"; });
  if (t.device.kind != DeviceKind::cpu)
    return bad([] { return "expected a CPU tensor (the CUDA backend is not available)"; });
  if (t.rank != Rank)
    return bad([&] { return "expected rank " + std::to_string(Rank) + ", got rank " + std::to_string(t.rank); });
  for (int i = 0; i < Rank; ++i)
    if (t.shape[size_t(i)] < 0) return bad([&] { return "expected non-negative sizes, got shape " + shape_text(t); });
  if (t.strides[size_t(Rank - 1)] != 1)
    return bad([&] {
      return "expected contiguous rows (last stride 1), got stride " + std::to_string(t.strides[size_t(Rank - 1)]);
    });
  // An empty row addresses nothing: any row stride will do.
  if (Rank == 2 && t.shape[1] > 0 && t.strides[0] < t.shape[1])
    return bad([&] {
      return "expected a row stride of at least the row length " + std::to_string(t.shape[1]) + ", got " +
             std::to_string(t.strides[0]);
    });
  return true;
}

// True when the call is well formed; with Explain, the first bad argument throws instead.
template <bool Explain>
bool check_call(const TensorView& a, const TensorView& b, const TensorView& c, const MatmulOptions& opts) {
  if (!check_tensor<Explain, 2>("a", a) || !check_tensor<Explain, 2>("b", b) || !check_tensor<Explain, 2>("c", c))
    return false;
  auto bad = [&](const char* argument, auto&& what) {
    if constexpr (Explain) fail(argument, what());
    return false;
  };
  const int64_t m = a.shape[0], k = a.shape[1];
  const int64_t b_k = opts.trans_b ? b.shape[1] : b.shape[0];
  const int64_t n = opts.trans_b ? b.shape[0] : b.shape[1];
  if (b_k != k)
    return bad("b", [&] {
      return std::string("expected shape ") + (opts.trans_b ? "[N, K=" : "[K=") + std::to_string(k) +
             (opts.trans_b ? "]" : ", N]") + " to match a.shape[1] = " + std::to_string(k) + ", got " +
             shape_text(b) + (opts.trans_b ? " (trans_b is set)" : "");
    });
  if (c.shape[0] != m || c.shape[1] != n)
    return bad("c", [&] {
      return "expected shape [" + std::to_string(m) + ", " + std::to_string(n) + "], got " + shape_text(c);
    });
  const Extent c_bytes = extent<2>(c);
  if (opts.bias) {
    if (!check_tensor<Explain, 1>("options.bias", *opts.bias)) return false;
    if (opts.bias->shape[0] != n)
      return bad("options.bias",
                 [&] { return "expected shape [" + std::to_string(n) + "], got " + shape_text(*opts.bias); });
    if (overlap(c_bytes, extent<1>(*opts.bias)))
      return bad("c", [] { return "expected an output that does not overlap options.bias"; });
  }
  if (!std::isfinite(opts.beta)) return bad("options.beta", [] { return "expected a finite number"; });
  if (opts.activation != Activation::none && opts.activation != Activation::relu &&
      opts.activation != Activation::gelu)
    return bad("options.activation", [] { return "expected none, relu or gelu"; });
  if (overlap(c_bytes, extent<2>(a))) return bad("c", [] { return "expected an output that does not overlap a"; });
  if (overlap(c_bytes, extent<2>(b))) return bad("c", [] { return "expected an output that does not overlap b"; });
  return true;
}

}  // namespace matmul_args

// The call's workload in its kernel form (Workload::kernel_form), as the runtime keys and lists it.
inline Workload matmul_workload(const TensorView& a, const TensorView& b, const TensorView& c,
                                const MatmulOptions& opts) {
  if (!matmul_args::check_call<false>(a, b, c, opts)) matmul_args::explain(a, b, c, opts);
  static_assert(uint8_t(Activation::relu) == uint8_t(ActivationKind::relu) &&
                uint8_t(Activation::gelu) == uint8_t(ActivationKind::gelu));
  Workload w;
  w.m = a.shape[0], w.n = c.shape[1], w.k = a.shape[1];
  w.lda = a.strides[0], w.ldb = b.strides[0], w.ldc = c.strides[0];
  w.trans_b = opts.trans_b;
  w.bias = opts.bias != nullptr;
  w.act = static_cast<ActivationKind>(opts.activation);  // checked above to be one of the three
  w.beta = opts.beta;
  return w.kernel_form();
}

}  // namespace livetune
