#include "jit/target.hpp"

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "jit/log.hpp"

namespace livetune {
namespace {

int64_t sysconf_or(int name, int64_t fallback) {
  long v = ::sysconf(name);
  return v > 0 ? int64_t(v) : fallback;
}

// sysfs first: glibc's sysconf reports, on AMD EPYC guests, the L3 of the whole socket
// (256 MiB on a Zen 3 VM whose cores share 32 MiB).
int64_t cache_bytes(int level, int sysconf_name, int64_t fallback) {
  const int64_t bytes = sysfs_cache_bytes("/sys/devices/system/cpu/cpu0/cache", level);
  return bytes > 0 ? bytes : sysconf_or(sysconf_name, fallback);
}

// What the code generator and the rules read from the features.
void derive_isa(Target& t) {
  t.avx2 = t.has("avx2") && t.has("fma");
  t.avx512 = t.has("avx512f") && t.has("avx512vl") && t.has("avx512bw") && t.has("avx512dq");
  t.amx = t.has("amx-tile");
  t.zmm_in_halves = t.avx512 && t.cpu == "znver4";
}

// Encoded with EVEX or using tile registers: beyond an AVX2 host.
bool above_avx2(const std::string& feature) {
  return feature.starts_with("avx512") || feature.starts_with("avx10") || feature.starts_with("amx") ||
         feature == "evex512";
}

Target detect_host() {
  Target t;
  t.triple = llvm::sys::getProcessTriple();
  t.cpu = llvm::sys::getHostCPUName().str();
  for (const auto& f : llvm::sys::getHostCPUFeatures())
    if (f.second) t.features.push_back(f.first().str());
  std::sort(t.features.begin(), t.features.end());
  derive_isa(t);
  // CPUID's vendor: LLVM's CPU name may be a guess (a Sapphire Rapids guest read "rocketlake").
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  t.intel = __builtin_cpu_is("intel");
#endif
  t.cores = int(std::max(1u, std::thread::hardware_concurrency()));
  t.l1d_bytes = cache_bytes(1, _SC_LEVEL1_DCACHE_SIZE, t.l1d_bytes);
  t.l2_bytes = cache_bytes(2, _SC_LEVEL2_CACHE_SIZE, t.l2_bytes);
  t.l3_bytes = cache_bytes(3, _SC_LEVEL3_CACHE_SIZE, t.l3_bytes);
  return t;
}

}  // namespace

int64_t sysfs_cache_bytes(const std::string& dir, int level) {
  for (int index = 0;; ++index) {
    const std::string at = dir + "/index" + std::to_string(index) + "/";
    auto read = [&](const char* name) {
      std::ifstream in(at + name);
      std::string v;
      in >> v;
      return v;
    };
    const std::string cache_level = read("level");
    if (cache_level.empty()) return 0;
    if (cache_level != std::to_string(level) || read("type") == "Instruction") continue;
    const std::string size = read("size");  // e.g. "32768K"
    int64_t bytes = 0;
    size_t i = 0;
    for (; i < size.size() && size[i] >= '0' && size[i] <= '9'; ++i) bytes = bytes * 10 + (size[i] - '0');
    const std::string unit = size.substr(i);
    return unit == "K" ? bytes * 1024 : unit == "M" ? bytes * 1024 * 1024 : unit.empty() ? bytes : 0;
  }
}

bool Target::has(const std::string& feature) const {
  return std::binary_search(features.begin(), features.end(), feature);
}

std::string Target::fingerprint() const {
  // Code depends on the ISA and LLVM; cache sizes only steer the tuning, but a config tuned
  // for other caches is a different record, so they are part of the key too.
  std::ostringstream key;
  key << triple << '|' << cpu << '|' << LLVM_VERSION_STRING << '|' << l1d_bytes << '|' << l2_bytes << '|'
      << l3_bytes << '|' << cores;
  for (const auto& f : features) key << ',' << f;
  // FNV-1a: stable across builds and processes, unlike std::hash.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : key.str()) h = (h ^ ch) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  std::string isa = avx512 ? "avx512" : avx2 ? "avx2" : "generic";
  return llvm::Triple(triple).getArchName().str() + "-" + isa + "-" + hex;
}

std::string Target::describe() const {
  std::ostringstream s;
  s << "triple " << triple << ", cpu " << cpu << (intel ? " (Intel)" : "") << ", " << cores << " cores, L1d "
    << l1d_bytes / 1024 << " KiB, L2 " << l2_bytes / 1024 << " KiB, L3 " << l3_bytes / 1024 << " KiB, ISA "
    << (avx512 ? "AVX-512" : avx2 ? "AVX2" : "generic") << (amx ? " + AMX" : "");
  if (!withheld.empty()) s << " (capped by LIVETUNE_ISA; " << withheld.size() << " host features withheld)";
  return s.str();
}

Target capped_to_isa(Target t, const std::string& name) {
  std::string isa = name;
  std::transform(isa.begin(), isa.end(), isa.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  if (isa == "native") return t;
  if (isa != "avx2") throw std::invalid_argument("expected native or avx2, got '" + name + "'");
  if (!t.avx2) throw std::invalid_argument("avx2: the host has no AVX2 and FMA");
  std::vector<std::string> kept;
  for (std::string& f : t.features) (above_avx2(f) ? t.withheld : kept).push_back(std::move(f));
  t.features = std::move(kept);
  derive_isa(t);
  return t;
}

const Target& Target::host() {
  // Never destroyed: a static Runtime reads it while it is destroyed after main.
  static const Target& t = *new Target([] {
    Target native = detect_host();
    const char* isa = std::getenv("LIVETUNE_ISA");
    if (!isa || !*isa) return native;
    try {
      return capped_to_isa(native, isa);
    } catch (const std::invalid_argument& e) {
      log(LogLevel::warn, std::string("LIVETUNE_ISA ignored: ") + e.what());
      return native;
    }
  }());
  return t;
}

}  // namespace livetune
