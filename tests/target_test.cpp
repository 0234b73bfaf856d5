// jit/: cache sizes read from a CPU's sysfs cache folder (built here as a small tree).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
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

}  // namespace
}  // namespace livetune
