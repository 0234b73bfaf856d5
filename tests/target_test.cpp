// jit/: cache sizes read from a CPU's sysfs cache folder (built here as a small tree); a
// target capped to AVX2 (LIVETUNE_ISA).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "jit/target.hpp"

namespace livetune {
namespace {

namespace fs = std::filesystem;

struct CacheFolder {
  CacheFolder() : dir(fs::temp_directory_path() / ("livetune-sysfs-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
  }
  ~CacheFolder() { fs::remove_all(dir); }
  void add(int index, const std::string& level, const std::string& type, const std::string& size) const {
    const fs::path at = dir / ("index" + std::to_string(index));
    fs::create_directories(at);
    std::ofstream(at / "level") << level << "\n";
    std::ofstream(at / "type") << type << "\n";
    std::ofstream(at / "size") << size << "\n";
  }
  fs::path dir;
};

TEST(SysfsCacheBytes, ReadsDataAndUnifiedCachesOfEachLevel) {
  CacheFolder f;
  // As a Zen 3 guest lists them: the instruction cache sits beside L1d at level 1.
  f.add(0, "1", "Data", "32K");
  f.add(1, "1", "Instruction", "64K");
  f.add(2, "2", "Unified", "512K");
  f.add(3, "3", "Unified", "32768K");
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 1), 32 * 1024);
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 2), 512 * 1024);
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 3), 32 * 1024 * 1024);
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 4), 0);
}

TEST(SysfsCacheBytes, SkipsAnInstructionCacheListedFirstAndReadsMegabytes) {
  CacheFolder f;
  f.add(0, "1", "Instruction", "32K");
  f.add(1, "1", "Data", "48K");
  f.add(2, "2", "Unified", "2M");
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 1), 48 * 1024);
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 2), 2 * 1024 * 1024);
}

TEST(SysfsCacheBytes, AMissingFolderOrAnUnknownUnitGivesZero) {
  CacheFolder f;
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 1), 0);
  f.add(0, "2", "Unified", "512G");
  EXPECT_EQ(sysfs_cache_bytes(f.dir.string(), 2), 0);
}

TEST(TargetHost, CacheSizesGrowWithTheLevel) {
  const Target& t = Target::host();
  EXPECT_GT(t.l1d_bytes, 0);
  EXPECT_LT(t.l1d_bytes, t.l2_bytes);
  EXPECT_LT(t.l2_bytes, t.l3_bytes);
}

// The vendor as the kernel reads it from CPUID.
TEST(TargetHost, IntelMatchesTheVendorInProcCpuinfo) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, vendor;
  while (vendor.empty() && std::getline(in, line))
    if (line.rfind("vendor_id", 0) == 0) vendor = line.substr(line.find(':') + 1);
  if (vendor.empty()) GTEST_SKIP() << "no vendor_id in /proc/cpuinfo";
  EXPECT_EQ(Target::host().intel, vendor.find("GenuineIntel") != std::string::npos) << vendor;
}

// An AVX-512 Zen 4 capped to AVX2: no feature above AVX2 left, each of them withheld; 8 floats
// in 16 registers, no halves; a fingerprint of its own (its records are another machine's).
TEST(TargetIsa, CappedToAvx2WithholdsWhatLiesAbove) {
  Target zen4;
  zen4.triple = "x86_64-pc-linux-gnu", zen4.cpu = "znver4";
  zen4.features = {"amx-tile", "avx", "avx2", "avx512bw", "avx512dq", "avx512f", "avx512vl", "evex512", "fma"};
  zen4.avx2 = zen4.avx512 = zen4.amx = zen4.zmm_in_halves = true;

  const Target t = capped_to_isa(zen4, "avx2");
  EXPECT_EQ(t.features, (std::vector<std::string>{"avx", "avx2", "fma"}));
  EXPECT_EQ(t.withheld,
            (std::vector<std::string>{"amx-tile", "avx512bw", "avx512dq", "avx512f", "avx512vl", "evex512"}));
  EXPECT_TRUE(t.avx2);
  EXPECT_FALSE(t.avx512 || t.amx || t.zmm_in_halves);
  EXPECT_EQ(t.vector_floats(), 8);
  EXPECT_EQ(t.vector_registers(), 16);
  EXPECT_NE(t.fingerprint(), zen4.fingerprint());
  EXPECT_NE(t.fingerprint().find("-avx2-"), std::string::npos);

  EXPECT_EQ(capped_to_isa(zen4, "AVX2").features, t.features);

  const Target same = capped_to_isa(zen4, "native");
  EXPECT_EQ(same.features, zen4.features);
  EXPECT_TRUE(same.withheld.empty());
  EXPECT_EQ(same.fingerprint(), zen4.fingerprint());
}

TEST(TargetIsa, RejectsAnUnknownNameAndAnIsaTheHostLacks) {
  Target old;
  old.features = {"avx", "sse4.2"};
  EXPECT_THROW(capped_to_isa(old, "avx2"), std::invalid_argument);
  EXPECT_THROW(capped_to_isa(old, "avx512"), std::invalid_argument);
  EXPECT_THROW(capped_to_isa(old, ""), std::invalid_argument);
}

}  // namespace
}  // namespace livetune
