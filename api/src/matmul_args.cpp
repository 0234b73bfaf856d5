#include "matmul_args.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>

namespace livetune {
namespace {

std::string shape_text(const TensorView& t) {
  std::ostringstream s;
  s << '[';
  for (int i = 0; i < t.rank; ++i) s << (i ? ", " : "") << t.shape[size_t(i)];
  s << ']';
  return s.str();
}

[[noreturn, gnu::cold]] void fail(const char* argument, const std::string& what) {
  throw Error(argument, std::string("matmul: argument '") + argument + "': " + what);
}

// What every tensor argument needs: data, dtype, device, rank, row-major strides. The test
// that passes is a few compares inlined into the call path; the one that names what is wrong
// runs only when it fails (the two together were a quarter of a 4x4x4 call through the
// runtime).
bool plain_tensor(const TensorView& t, int rank) {
  if (!t.data || t.dtype != DType::f32 || t.device.kind != DeviceKind::cpu || t.rank != rank) return false;
  for (int i = 0; i < rank; ++i)
    if (t.shape[size_t(i)] < 0) return false;
  return t.strides[size_t(rank - 1)] == 1 && !(rank == 2 && t.shape[1] > 0 && t.strides[0] < t.shape[1]);
}

[[gnu::cold]] void explain_tensor(const char* name, const TensorView& t, int rank) {
  if (!t.data) fail(name, "expected non-null data");
  if (t.dtype != DType::f32) fail(name, "expected dtype f32");
  if (t.device.kind != DeviceKind::cpu) fail(name, "expected a CPU tensor (the CUDA backend is not available)");
  if (t.rank != rank) fail(name, "expected rank " + std::to_string(rank) + ", got rank " + std::to_string(t.rank));
  for (int i = 0; i < rank; ++i)
    if (t.shape[size_t(i)] < 0) fail(name, "expected non-negative sizes, got shape " + shape_text(t));
  if (t.strides[size_t(rank - 1)] != 1)
    fail(name, "expected contiguous rows (last stride 1), got stride " + std::to_string(t.strides[size_t(rank - 1)]));
  // An empty row addresses nothing: any row stride will do.
  if (rank == 2 && t.shape[1] > 0 && t.strides[0] < t.shape[1])
    fail(name, "expected a row stride of at least the row length " + std::to_string(t.shape[1]) + ", got " +
                   std::to_string(t.strides[0]));
}

void check_tensor(const char* name, const TensorView& t, int rank) {
  if (!plain_tensor(t, rank)) explain_tensor(name, t, rank);
}

// Bytes [begin, end) that the view can touch.
std::pair<uintptr_t, uintptr_t> extent(const TensorView& t) {
  const auto begin = reinterpret_cast<uintptr_t>(t.data);
  int64_t last = 0;
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[size_t(i)] == 0) return {begin, begin};
    last += (t.shape[size_t(i)] - 1) * t.strides[size_t(i)];
  }
  return {begin, begin + uintptr_t(last + 1) * sizeof(float)};
}

bool overlap(const TensorView& x, const TensorView& y) {
  auto [xb, xe] = extent(x);
  auto [yb, ye] = extent(y);
  return xb < ye && yb < xe;
}

}  // namespace

Workload matmul_workload(const TensorView& a, const TensorView& b, const TensorView& c, const MatmulOptions& opts) {
  check_tensor("a", a, 2);
  check_tensor("b", b, 2);
  check_tensor("c", c, 2);
  const int64_t m = a.shape[0], k = a.shape[1];
  const int64_t b_k = opts.trans_b ? b.shape[1] : b.shape[0];
  const int64_t n = opts.trans_b ? b.shape[0] : b.shape[1];
  if (b_k != k)
    fail("b", std::string("expected shape ") + (opts.trans_b ? "[N, K=" : "[K=") + std::to_string(k) +
                  (opts.trans_b ? "]" : ", N]") + " to match a.shape[1] = " + std::to_string(k) + ", got " +
                  shape_text(b) + (opts.trans_b ? " (trans_b is set)" : ""));
  if (c.shape[0] != m || c.shape[1] != n)
    fail("c", "expected shape [" + std::to_string(m) + ", " + std::to_string(n) + "], got " + shape_text(c));
  if (opts.bias) {
    check_tensor("options.bias", *opts.bias, 1);
    if (opts.bias->shape[0] != n)
      fail("options.bias", "expected shape [" + std::to_string(n) + "], got " + shape_text(*opts.bias));
    if (overlap(c, *opts.bias)) fail("c", "expected an output that does not overlap options.bias");
  }
  if (!std::isfinite(opts.beta)) fail("options.beta", "expected a finite number");
  if (opts.activation != Activation::none && opts.activation != Activation::relu &&
      opts.activation != Activation::gelu)
    fail("options.activation", "expected none, relu or gelu");
  if (overlap(c, a)) fail("c", "expected an output that does not overlap a");
  if (overlap(c, b)) fail("c", "expected an output that does not overlap b");

  Workload w;
  w.m = m, w.n = n, w.k = k;
  w.lda = a.strides[0], w.ldb = b.strides[0], w.ldc = c.strides[0];
  w.trans_b = opts.trans_b;
  w.bias = opts.bias != nullptr;
  w.act = opts.activation == Activation::relu   ? ActivationKind::relu
          : opts.activation == Activation::gelu ? ActivationKind::gelu
                                                : ActivationKind::none;
  w.beta = opts.beta;
  return w;
}

}  // namespace livetune
