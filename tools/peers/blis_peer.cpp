// BLIS through its typed API (bli_sgemm_ex): general strides, so B transposed is B read with its
// strides swapped, and the thread count given per call. Loaded with dlopen(RTLD_LOCAL): BLIS also
// exports the BLAS and CBLAS names (sgemm_, cblas_sgemm) that OpenBLAS defines, and linked
// beside it one of the two would silently serve the other's peer (and LIBXSMM's fallback).
#include <blis.h>
#include <cpuid.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tools/peers/epilogue.hpp"
#include "tools/peers/factories.hpp"

namespace livetune::peers {
namespace {

struct BlisLibrary {
  decltype(&bli_sgemm_ex) sgemm_ex = nullptr;
  decltype(&bli_arch_query_id) arch_query_id = nullptr;
  decltype(&bli_arch_string) arch_string = nullptr;
  decltype(&bli_info_get_version_str) version = nullptr;

  bool arch_chosen_here = false;  // BLIS_ARCH_TYPE set by choose_arch_for_unknown_amd

  static const BlisLibrary& get() {
    static const BlisLibrary lib;  // loaded once, never unloaded: its OpenMP threads outlive any call
    return lib;
  }

 private:
  BlisLibrary() {
    void* h = dlopen("libblis.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h)
      throw std::runtime_error(std::string("peer blis: cannot load libblis.so.4 (scripts/setup.sh installs libblis-dev): ") +
                               dlerror());
    sgemm_ex = reinterpret_cast<decltype(sgemm_ex)>(symbol(h, "bli_sgemm_ex"));
    arch_query_id = reinterpret_cast<decltype(arch_query_id)>(symbol(h, "bli_arch_query_id"));
    arch_string = reinterpret_cast<decltype(arch_string)>(symbol(h, "bli_arch_string"));
    version = reinterpret_cast<decltype(version)>(symbol(h, "bli_info_get_version_str"));
    arch_chosen_here = std::string(version()).starts_with("0.") && choose_arch_for_unknown_amd();
    // Started here, not by the first call: a configuration chosen by BLIS_ARCH_TYPE is checked
    // against BLIS's kernel table, which only its start fills (asked for before it, BLIS aborted).
    reinterpret_cast<decltype(&bli_init)>(symbol(h, "bli_init"))();
  }
  // BLIS 0.x knows AMD's CPUs up to family 0x19 (Zen 3, Zen 4) and runs its generic C kernels
  // on later ones (0.9 on Zen 5, 256³: 33 GFLOP/s, where its skx kernels run 165 and haswell's
  // 94). There, unless the caller chose one (BLIS_ARCH_TYPE, read when BLIS starts, not when it
  // loads), the configuration of the host's widest ISA, so that the peer is BLIS at its best.
  static bool choose_arch_for_unknown_amd() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (std::getenv("BLIS_ARCH_TYPE") || !__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
    char vendor[13] = {};
    std::memcpy(vendor, &ebx, 4), std::memcpy(vendor + 4, &edx, 4), std::memcpy(vendor + 8, &ecx, 4);
    if (std::strcmp(vendor, "AuthenticAMD") != 0 || !__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    const unsigned base = (eax >> 8) & 0xf, family = base == 0xf ? base + ((eax >> 20) & 0xff) : base;
    if (family <= 0x19) return false;
    const arch_t arch = __builtin_cpu_supports("avx512f") ? BLIS_ARCH_SKX : BLIS_ARCH_HASWELL;
    return setenv("BLIS_ARCH_TYPE", std::to_string(int(arch)).c_str(), 0) == 0;
  }

  static void* symbol(void* h, const char* name) {
    void* s = dlsym(h, name);
    if (!s) throw std::runtime_error(std::string("peer blis: libblis.so.4 lacks ") + name);
    return s;
  }
};

class BlisPeer final : public Peer {
 public:
  BlisPeer() : lib_(BlisLibrary::get()) {}

  std::string name() const override { return "blis"; }
  std::string detail() const override {
    // The sub-configuration BLIS runs: its kernels (on a CPU newer than the release, its generic
    // ones, or those chosen by choose_arch_for_unknown_amd).
    return op_.threads > 0 ? "bli_sgemm_ex " + std::string(lib_.version()) + ", configuration " +
                                 std::string(lib_.arch_string(lib_.arch_query_id())) +
                                 (lib_.arch_chosen_here ? " (chosen by livetune: BLIS has none for this CPU)" : "") +
                                 ", " + std::to_string(op_.threads) + " thread(s)"
                           : "";
  }

  void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
               int threads) override {
    op_ = Operands{w, a, b, bias, c, threads};
    bli_rntm_init(&rntm_);
    bli_rntm_set_num_threads(threads, &rntm_);
  }

  void run() override {
    float alpha = 1.0f, beta = fold_into_c(op_);
    const Workload& w = op_.w;
    // Row-major: row stride the leading dimension, column stride 1; B transposed swaps them.
    const inc_t rsb = w.trans_b ? 1 : w.ldb, csb = w.trans_b ? w.ldb : 1;
    lib_.sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, w.m, w.n, w.k, &alpha, const_cast<float*>(op_.a), w.lda, 1,
                  const_cast<float*>(op_.b), rsb, csb, &beta, op_.c, w.ldc, 1, nullptr, &rntm_);
    activate(op_);
  }

 private:
  const BlisLibrary& lib_;
  Operands op_;
  rntm_t rntm_;
};

}  // namespace

std::unique_ptr<Peer> make_blis() { return std::make_unique<BlisPeer>(); }

}  // namespace livetune::peers

#if defined(__SANITIZE_ADDRESS__)
// BLIS has thread-local data, in a dynamic TLS block once dlopen'ed. GCC 12's LeakSanitizer,
// tracking such blocks through __tls_get_addr on glibc 2.36, read a bogus range for one and
// crashed at exit (after every test had passed). Not intercepted, LSan still scans each thread's
// static TLS and stacks; a pointer held only in dynamic TLS would show as a leak, not hide one.
extern "C" const char* __asan_default_options() { return "intercept_tls_get_addr=0"; }
#endif
