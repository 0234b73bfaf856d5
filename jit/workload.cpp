#include "jit/workload.hpp"

#include <charconv>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

namespace livetune {
namespace {

int64_t parse_int(std::string_view key, std::string_view v) {
  int64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size())
    throw std::invalid_argument("workload field '" + std::string(key) + "': expected an integer, got '" +
                                std::string(v) + "'");
  return out;
}

bool parse_bool(std::string_view key, std::string_view v) {
  if (v == "0" || v == "1") return v == "1";
  throw std::invalid_argument("workload field '" + std::string(key) + "': expected 0 or 1, got '" +
                              std::string(v) + "'");
}

}  // namespace

std::string_view activation_name(ActivationKind act) {
  switch (act) {
    case ActivationKind::none: return "none";
    case ActivationKind::relu: return "relu";
    case ActivationKind::gelu: return "gelu";
  }
  return "?";
}

Workload Workload::matmul(int64_t m, int64_t n, int64_t k, bool trans_b) {
  Workload w;
  w.m = m;
  w.n = n;
  w.k = k;
  w.trans_b = trans_b;
  w.lda = k;
  w.ldb = trans_b ? k : n;
  w.ldc = n;
  return w;
}

Workload Workload::kernel_form() const {
  if (n != 1 || trans_b || ldb != 1 || k < 1) return *this;
  Workload w = *this;
  w.trans_b = true;
  w.ldb = k;
  return w;
}

std::string Workload::text() const {
  std::ostringstream s;
  s << "matmul m=";
  if (min_m > 0) s << min_m << "..";
  s << m << " n=" << n << " k=" << k << " trans_b=" << int(trans_b) << " bias=" << int(bias)
    << " act=" << activation_name(act);
  Workload dense = matmul(m, n, k, trans_b);
  if (lda != dense.lda) s << " lda=" << lda;
  if (ldb != dense.ldb) s << " ldb=" << ldb;
  if (ldc != dense.ldc) s << " ldc=" << ldc;
  if (beta != 0.0f) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, beta);  // shortest text that reads back exactly
    s << " beta=" << std::string_view(buf, size_t(r.ptr - buf));
  }
  if (constant_b) s << " constant_b=1";
  return s.str();
}

Workload Workload::parse(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string op;
  in >> op;
  if (op != "matmul") throw std::invalid_argument("workload text: expected it to start with 'matmul', got '" + op + "'");
  Workload w;
  bool has_m = false, has_n = false, has_k = false, m_range = false;
  int64_t lda = -1, ldb = -1, ldc = -1;
  std::string field;
  while (in >> field) {
    auto eq = field.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("workload text: expected key=value, got '" + field + "'");
    std::string_view key(field.data(), eq), v(field.data() + eq + 1, field.size() - eq - 1);
    if (key == "m") {
      // "m=LO..HI": a bucket of M
      const size_t dots = v.find("..");
      if (dots != std::string_view::npos)
        w.min_m = parse_int(key, v.substr(0, dots)), v = v.substr(dots + 2), m_range = true;
      w.m = parse_int(key, v), has_m = true;
    }
    else if (key == "n") w.n = parse_int(key, v), has_n = true;
    else if (key == "k") w.k = parse_int(key, v), has_k = true;
    else if (key == "lda") lda = parse_int(key, v);
    else if (key == "ldb") ldb = parse_int(key, v);
    else if (key == "ldc") ldc = parse_int(key, v);
    else if (key == "trans_b") w.trans_b = parse_bool(key, v);
    else if (key == "bias") w.bias = parse_bool(key, v);
    else if (key == "constant_b") w.constant_b = parse_bool(key, v);
    else if (key == "act") {
      if (v == "none") w.act = ActivationKind::none;
      else if (v == "relu") w.act = ActivationKind::relu;
      else if (v == "gelu") w.act = ActivationKind::gelu;
      else throw std::invalid_argument("workload field 'act': expected none, relu or gelu, got '" + std::string(v) + "'");
    } else if (key == "beta") {
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), w.beta);
      if (ec != std::errc() || p != v.data() + v.size())
        throw std::invalid_argument("workload field 'beta': expected a number, got '" + std::string(v) + "'");
    } else {
      throw std::invalid_argument("workload text: unknown field '" + std::string(key) + "'");
    }
  }
  if (!has_m || !has_n || !has_k) throw std::invalid_argument("workload text: m, n and k are required");
  if (w.m < 1 || w.n < 1 || w.k < 1) throw std::invalid_argument("workload text: m, n and k must be at least 1");
  if (m_range && (w.min_m < 1 || w.min_m >= w.m))
    throw std::invalid_argument("workload field 'm': expected a range LO..HI with 1 <= LO < HI");
  Workload dense = matmul(w.m, w.n, w.k, w.trans_b);
  w.lda = lda < 0 ? dense.lda : lda;
  w.ldb = ldb < 0 ? dense.ldb : ldb;
  w.ldc = ldc < 0 ? dense.ldc : ldc;
  if (w.lda < w.k) throw std::invalid_argument("workload field 'lda': expected at least k");
  if (w.ldb < w.b_cols()) throw std::invalid_argument("workload field 'ldb': expected at least the columns of B");
  if (w.ldc < w.n) throw std::invalid_argument("workload field 'ldc': expected at least n");
  return w;
}

size_t Workload::hash() const {
  uint32_t beta_bits = 0;
  if (beta != 0.0f) std::memcpy(&beta_bits, &beta, sizeof beta_bits);  // -0 and +0 are one workload
  const uint64_t parts[] = {uint64_t(op) | uint64_t(trans_b) << 8 | uint64_t(bias) << 9 | uint64_t(act) << 10 |
                                uint64_t(constant_b) << 12 |
                                uint64_t(beta_bits) << 32,
                            uint64_t(m) | uint64_t(min_m) << 40, uint64_t(n), uint64_t(k), uint64_t(lda), uint64_t(ldb),
                            uint64_t(ldc)};
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (uint64_t p : parts) {
    h ^= p + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return size_t(h ^ (h >> 33));
}

}  // namespace livetune
