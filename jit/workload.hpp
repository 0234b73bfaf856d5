#pragma once
// One op instance: what a kernel is specialised to. Trivially copyable and hashable so that
// the dispatcher's hot path can build and look one up without allocating.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace livetune {

enum class OpKind : uint8_t { matmul };
enum class ActivationKind : uint8_t { none, relu, gelu };

std::string_view activation_name(ActivationKind act);

// matmul: C[M×N] = act(A[M×K]·B + bias[N] + beta·C), f32, row-major with leading dimensions.
// B is K×N (ldb ≥ N), or N×K when trans_b (ldb ≥ K).
// A workload with min_m > 0 is a bucket of M (a dimension that varies from call to call,
// such as batch × sequence): its kernels take any M in [min_m, m] at run time.
struct Workload {
  OpKind op = OpKind::matmul;
  bool trans_b = false;
  bool bias = false;
  ActivationKind act = ActivationKind::none;
  int64_t m = 0, n = 0, k = 0;
  int64_t min_m = 0;  // 0: M is m; else the smallest M of the bucket (< m)
  int64_t lda = 0, ldb = 0, ldc = 0;
  float beta = 0.0f;
  // B is the caller's constant (a ConstantMatrix, such as a layer's weights): kernels that pack
  // B read a copy packed once, so packing costs a call nothing and its fastest config can
  // differ from that of a B passed fresh each call: the two are tuned and recorded apart.
  bool constant_b = false;

  static Workload matmul(int64_t m, int64_t n, int64_t k, bool trans_b = false);

  // Canonical text, e.g. "matmul m=96 n=1536 k=384 trans_b=0 bias=1 act=gelu" ("m=65..128"
  // for a bucket of M); leading dimensions, beta and constant_b appear only when they differ
  // from the defaults.
  std::string text() const;
  // Accepts the canonical text and any order of its fields; throws std::invalid_argument.
  static Workload parse(std::string_view text);

  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  // The fewest rows a call of this workload may have.
  int64_t least_m() const { return min_m > 0 ? min_m : m; }
  // The workload whose kernels compute this one. A K×1 B with rows one float apart is the
  // same memory as a 1×K B transposed: as such each row of C is a dot product of contiguous
  // rows (A's and B's), streamed at the read bandwidth, where the K×1 form broadcast A's
  // floats one by one into a single column (Zen 5, 2048×1×2048: 0.24 of the read roofline
  // against 0.97).
  Workload kernel_form() const;
  int64_t b_rows() const { return trans_b ? n : k; }
  int64_t b_cols() const { return trans_b ? k : n; }

  // Inline: the dispatcher compares a call's workload with the few its thread called last.
  bool operator==(const Workload& o) const {
    return m == o.m && min_m == o.min_m && n == o.n && k == o.k && lda == o.lda && ldb == o.ldb && ldc == o.ldc &&
           op == o.op && trans_b == o.trans_b && bias == o.bias && act == o.act && beta == o.beta &&
           constant_b == o.constant_b;
  }
  size_t hash() const;
};

struct WorkloadHash {
  size_t operator()(const Workload& w) const { return w.hash(); }
};

}  // namespace livetune
