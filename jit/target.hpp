#pragma once
// Where code runs: the host CPU as LLVM sees it, plus what the code generator and the
// default rules need to know about it (vector width, registers, caches).
#include <cstdint>
#include <string>
#include <vector>

namespace livetune {

struct Target {
  std::string triple;
  std::string cpu;                    // LLVM's name for the host CPU (may be imprecise)
  std::vector<std::string> features;  // enabled features, sorted, e.g. "avx512f"
  // Host features the generated code must not use: those above the ISA that LIVETUNE_ISA
  // names (capped_to_isa).
  std::vector<std::string> withheld;
  bool avx2 = false;
  bool avx512 = false;  // avx512f + avx512vl + avx512bw + avx512dq
  // 512-bit operations run as two 256-bit halves (Zen 4): a zmm FMA costs two ymm FMAs.
  bool zmm_in_halves = false;
  // An Intel core: some default rules differ by vendor where the same knob measured opposite
  // ways (e.g. how far down B's columns a tile may walk when B streams from memory).
  bool intel = false;
  bool amx = false;
  int cores = 1;
  int64_t l1d_bytes = 32 * 1024;
  int64_t l2_bytes = 1024 * 1024;
  int64_t l3_bytes = 8 * 1024 * 1024;

  // Floats per vector register the generated code uses (16 on AVX-512, 8 on AVX2).
  int vector_floats() const { return avx512 ? 16 : 8; }
  int vector_registers() const { return avx512 ? 32 : 16; }
  bool has(const std::string& feature) const;

  // Stable across processes on the same machine and LLVM version; part of every cache key.
  std::string fingerprint() const;
  std::string describe() const;

  // The host, capped to the ISA named by LIVETUNE_ISA where it is set (a bad name is logged
  // and ignored).
  static const Target& host();
};

// `t` generating code for no more than `isa`: "native" (all it has) or "avx2" (what an AVX2
// host runs: an AVX-512 host then builds and tests the code of the other half of the fleet),
// in any case. Throws std::invalid_argument for another name, or an ISA that `t` lacks.
Target capped_to_isa(Target t, const std::string& isa);

// The size of the data or unified cache of `level` that a CPU's sysfs cache folder `dir`
// (e.g. /sys/devices/system/cpu/cpu0/cache) describes, or 0 if it describes none.
int64_t sysfs_cache_bytes(const std::string& dir, int level);

}  // namespace livetune
