// The GEMM template's Space and Config: text round trips, parse errors that say what is wrong,
// the validity rule, enumerate with fixed knobs, and the default rule's configs (valid, and
// they compile to kernels that match the reference).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <utility>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/kernel.hpp"
#include "jit/target.hpp"
#include "policy/default_rule.hpp"
#include "test_util.hpp"

namespace livetune {
namespace {

const Target& host() { return Target::host(); }
int vec() { return host().vector_floats(); }

// A Zen 5 core's vector units and private caches, whatever the host: the default rule's
// branches for full-width AVX-512 AMD.
Target zen5_core() {
  Target t;
  t.avx2 = t.avx512 = true;
  t.l1d_bytes = 48 * 1024, t.l2_bytes = 1024 * 1024;
  return t;
}

// A Zen 4 core's: AVX-512 whose zmm operations run in halves, L1d 32 KiB, L2 1 MiB.
Target zen4_core() {
  Target t;
  t.avx2 = t.avx512 = t.zmm_in_halves = true;
  t.l1d_bytes = 32 * 1024, t.l2_bytes = 1024 * 1024;
  return t;
}

std::vector<Workload> some_workloads() {
  Workload padded = Workload::matmul(45, 77, 90);
  padded.lda += 3, padded.ldb += 5, padded.ldc += 7;
  return {Workload::matmul(1, 1, 1), Workload::matmul(127, 255, 129), Workload::matmul(64, 64, 64, true),
          Workload::matmul(1000, 16, 64), padded};
}

// The text of `c` with one knob's value replaced, or with the knob left out.
std::string edit_knob(const Config& c, const std::string& knob, const std::string* value) {
  std::string out;
  for (size_t i = 0; i < c.knobs().size(); ++i) {
    const Knob& k = c.knobs()[i];
    if (k.name == knob && !value) continue;
    if (!out.empty()) out += ' ';
    out += k.name + "=" + (k.name == knob ? *value : k.label(c.value(i)));
  }
  return out;
}
std::string with_knob(const Config& c, const std::string& knob, const std::string& value) {
  return edit_knob(c, knob, &value);
}
std::string without_knob(const Config& c, const std::string& knob) { return edit_knob(c, knob, nullptr); }

// Expects `f` to throw std::invalid_argument whose message contains every one of `parts`.
template <class F>
void expect_invalid(F f, const std::vector<std::string>& parts, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << what << ": no exception";
  } catch (const std::invalid_argument& e) {
    for (const auto& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << what << ": message '" << e.what() << "' should mention '" << part << "'";
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": expected std::invalid_argument, got '" << e.what() << "'";
  }
}

Config default_config() { return test::host_gemm_config().to_config(host()); }
// The default tile's width on this host.
int wide() { return test::host_gemm_config().nr; }
std::shared_ptr<const KnobList> knobs() { return gemm_space(Workload::matmul(8, 8, 8), host()).knob_list(); }

TEST(ConfigText, RoundTripsForManyRandomConfigs) {
  std::mt19937_64 rng(7);
  size_t checked = 0;
  for (const Workload& w : some_workloads()) {
    const Space space = gemm_space(w, host());
    for (const Config& c : space.sample_distinct(rng, 200)) {
      const std::string text = c.text();
      EXPECT_EQ(Config::parse(space.knob_list(), text), c) << text;
      EXPECT_EQ(space.parse(text), c) << text;
      EXPECT_EQ(space.parse(text).text(), text);
      EXPECT_EQ(GemmConfig::from(c).to_config(host()), c) << text;
      EXPECT_EQ(c.features().size(), c.knobs().size());
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5u * 200u);
}

TEST(ConfigText, AcceptsAnyOrderOfKnobs) {
  const Config c = default_config();
  std::string reversed;
  for (size_t i = c.knobs().size(); i-- > 0;) reversed += c.knobs()[i].name + "=" + c.knobs()[i].label(c.value(i)) + "  ";
  EXPECT_EQ(Config::parse(knobs(), reversed), c) << reversed;
}

TEST(ConfigText, EnumsAreWrittenAsLabels) {
  GemmConfig g;
  g.order = LoopOrder::kmn;
  g.split = Split::n;
  const std::string text = g.to_config(host()).text();
  EXPECT_NE(text.find("order=kmn"), std::string::npos) << text;
  EXPECT_NE(text.find("split=n"), std::string::npos) << text;
}

TEST(ConfigParse, UnknownKnob) {
  const std::string text = default_config().text() + " tile=3";
  expect_invalid([&] { Config::parse(knobs(), text); }, {"unknown knob", "tile"}, text);
}

TEST(ConfigParse, MissingKnob) {
  const std::string text = without_knob(default_config(), "kc");
  expect_invalid([&] { Config::parse(knobs(), text); }, {"kc", "missing"}, text);
}

TEST(ConfigParse, ValueNotInDomain) {
  for (auto [knob, value] : std::vector<std::pair<std::string, std::string>>{
           {"kc", "100"}, {"mr", "0"}, {"mr", "x"}, {"order", "abc"}, {"split", "k"}, {"unroll", "4.0"}, {"nc", ""}}) {
    const std::string text = with_knob(default_config(), knob, value);
    expect_invalid([&] { Config::parse(knobs(), text); }, {knob, "expected one of", "'" + value + "'"}, text);
  }
}

TEST(ConfigParse, MalformedFields) {
  const std::string base = default_config().text();
  expect_invalid([&] { Config::parse(knobs(), base + " mr6"); }, {"knob=value", "mr6"}, "no '='");
  expect_invalid([&] { Config::parse(knobs(), base + " =6"); }, {"knob=value"}, "no name");
  expect_invalid([&] { Config::parse(knobs(), base + " mr=6"); }, {"mr", "twice"}, "duplicate");
  expect_invalid([&] { Config::parse(knobs(), ""); }, {"missing"}, "empty text");
}

TEST(ConfigParse, InvalidCombinationIsRejectedBySpaceParse) {
  const Workload w = Workload::matmul(64, 64, 64);
  const Space space = gemm_space(w, host());
  GemmConfig g;
  g.mr = 16, g.nr = wide(), g.mc = 96, g.nc = 1536;
  const std::string text = g.to_config(host()).text();
  // Every value is in its domain, so the knob list alone accepts it ...
  EXPECT_NO_THROW(Config::parse(knobs(), text));
  // ... but the space does not: the register tile does not fit.
  expect_invalid([&] { space.parse(text); }, {"not valid", text}, text);
  // Nor does compile_gemm.
  EXPECT_THROW(compile_gemm(w, g.to_config(host())), std::invalid_argument);
}

// One config differing from the default in a few fields.
Config make(int mr, int nr, int mc, int nc, bool pack_b = true) {
  GemmConfig g;
  g.mr = mr, g.nr = nr, g.mc = mc, g.nc = nc, g.pack_b = pack_b;
  return g.to_config(host());
}

TEST(ValidityRule, RegisterTileMustFit) {
  const Space space = gemm_space(Workload::matmul(64, 64, 64), host());
  const int v = vec();
  EXPECT_FALSE(space.valid(make(16, wide(), 96, 1536))) << "mr=16 nr=" << wide();
  EXPECT_FALSE(space.valid(make(14, wide(), 168, 1536))) << "mr=14 nr=" << wide();
  EXPECT_TRUE(space.valid(make(6, wide(), 96, 1536))) << "the default 6×" << wide() << " tile";
  EXPECT_TRUE(space.valid(make(1, v, 16, 64)));
  if (host().avx512) {
    // 32 registers: mr·nv accumulators + nv for a row of B + 1 broadcast, and two free.
    EXPECT_TRUE(space.valid(make(6, 64, 96, 1536)));    // 24 + 4 + 1 + 2 = 31
    EXPECT_FALSE(space.valid(make(7, 64, 168, 1536)));  // 28 + 4 + 1 + 2 = 35
    EXPECT_TRUE(space.valid(make(8, 48, 96, 1536)));    // 24 + 3 + 1 + 2 = 30
    EXPECT_TRUE(space.valid(make(12, 32, 144, 1536)));  // 24 + 2 + 1 + 2 = 29
    EXPECT_FALSE(space.valid(make(14, 32, 168, 1536))); // 28 + 2 + 1 + 2 = 33
    EXPECT_FALSE(space.valid(make(16, 32, 96, 1536)));  // 32 + 2 + 1 + 2 = 37
    EXPECT_TRUE(space.valid(make(16, 16, 96, 1536)));   // 16 + 1 + 1 + 2 = 20
  } else {
    // 16 registers.
    EXPECT_TRUE(space.valid(make(6, 16, 96, 1536)));    // 12 + 2 + 1 = 15
    EXPECT_TRUE(space.valid(make(4, 24, 96, 1536)));    // 12 + 3 + 1 = 16
    EXPECT_FALSE(space.valid(make(4, 32, 96, 1536)));   // 16 + 4 + 1 = 21
    EXPECT_FALSE(space.valid(make(7, 16, 168, 1536)));  // 14 + 2 + 1 = 17
    EXPECT_TRUE(space.valid(make(14, 8, 168, 1536)));   // 14 + 1 + 1 = 16
    EXPECT_TRUE(space.valid(make(3, 32, 96, 1536)));    // 12 + 3 broadcasts + 1 = 16
  }
}

TEST(ValidityRule, BlocksAreMultiplesOfTheTile) {
  const Space space = gemm_space(Workload::matmul(64, 64, 64), host());
  const int v = vec();
  EXPECT_FALSE(space.valid(make(5, v, 96, 1536))) << "mc=96 is not a multiple of mr=5";
  EXPECT_TRUE(space.valid(make(5, v, 120, 1536)));
  EXPECT_FALSE(space.valid(make(4, 3 * v, 96, 64))) << "nc=64 is not a multiple of nr=" << 3 * v;
  EXPECT_TRUE(space.valid(make(4, 3 * v, 96, 3072)));
}

// Half-width vectors only where they compute at least a tenth fewer columns than the widest,
// and a tile is a whole number of at most four vectors.
TEST(ValidityRule, HalfWidthVectorsOnlyOnNarrowN) {
  EXPECT_TRUE(half_width_pays(17, 8, 16));    // 24 columns, not 32
  EXPECT_TRUE(half_width_pays(40, 8, 16));    // 40, not 48
  EXPECT_FALSE(half_width_pays(64, 8, 16));   // 64 either way
  EXPECT_FALSE(half_width_pays(1000, 8, 16));  // 1000, not 1008: under a tenth
  EXPECT_FALSE(half_width_pays(12, 8, 16));   // 16 either way
  if (!host().avx512) GTEST_SKIP() << "only AVX-512 has a narrower vector than the widest in the space";
  auto half = [](int mr, int nr) {
    GemmConfig g;
    g.mr = mr, g.nr = nr, g.vec = 8, g.mc = 96, g.nc = 1536, g.pack_b = false;
    return g.to_config(host());
  };
  const Space n17 = gemm_space(Workload::matmul(64, 17, 64), host());
  EXPECT_TRUE(n17.valid(half(8, 24)));    // 24 + 3 + 1 = 28 registers
  EXPECT_FALSE(n17.valid(half(10, 24)));  // 30 + 3 + 1 = 34
  EXPECT_FALSE(n17.valid(half(4, 48)));   // six vectors of 8
  EXPECT_FALSE(n17.valid(make(4, 24, 96, 1536, false))) << "nr=24 is not a multiple of 16";
  EXPECT_FALSE(gemm_space(Workload::matmul(64, 64, 64), host()).valid(half(8, 24)));
}

// B transposed and not packed is the dot tile's: A in place, full-width vectors along K, no
// prefetch along K or of C, and a height whose accumulators fit (dot_columns).
TEST(ValidityRule, TransposedBInPlaceIsTheDotTile) {
  const Space space = gemm_space(Workload::matmul(64, 64, 64, true), host());
  GemmConfig g = GemmConfig::from(make(4, wide(), 96, 1536, false));
  g.prefetch = 0, g.prefetch_c = 0, g.pack_a = false;
  EXPECT_TRUE(space.valid(g.to_config(host())));
  GemmConfig packed_a = g;
  packed_a.pack_a = true;
  EXPECT_FALSE(space.valid(packed_a.to_config(host())));
  GemmConfig prefetch_c = g;
  prefetch_c.prefetch_c = 1;
  EXPECT_FALSE(space.valid(prefetch_c.to_config(host())));
  GemmConfig tall = g;
  tall.mr = 16, tall.mc = 96;
  EXPECT_EQ(space.valid(tall.to_config(host())), dot_columns(16, host().vector_registers()) > 0);
  EXPECT_EQ(dot_columns(16, 32), 0);
  EXPECT_EQ(dot_columns(4, 32), 6);
  EXPECT_EQ(dot_columns(1, 16), 8);
  // Not transposed, the same config is the ordinary tile on B read in place.
  EXPECT_TRUE(gemm_space(Workload::matmul(64, 64, 64), host()).valid(make(6, wide(), 96, 1536, false)));
}

TEST(ValidityRule, KBlocksPastTheLongestPackedOnlyInTheDotForm) {
  const Workload transposed = Workload::matmul(8, 4096, 4096, true);
  GemmConfig g = GemmConfig::from(make(4, wide(), 96, 1536, false));
  g.prefetch = 0, g.prefetch_c = 0, g.pack_a = false, g.kc = 4096;
  EXPECT_TRUE(gemm_space(transposed, host()).valid(g.to_config(host())));
  GemmConfig packed = g;
  packed.pack_b = true;
  EXPECT_FALSE(gemm_space(transposed, host()).valid(packed.to_config(host())));
  EXPECT_FALSE(gemm_space(Workload::matmul(8, 4096, 4096), host()).valid(g.to_config(host())));
  packed.kc = kLongestPackedKc;
  EXPECT_TRUE(gemm_space(transposed, host()).valid(packed.to_config(host())));
}

TEST(ValidityRule, PrefetchAlongBRowsOnlyForBReadInPlace) {
  const Space space = gemm_space(Workload::matmul(8, 4096, 4096), host());
  GemmConfig g = GemmConfig::from(make(4, 2 * vec(), 96, 1536, false));
  g.prefetch_n = 256;
  EXPECT_TRUE(space.valid(g.to_config(host())));
  g.pack_b = true;  // a packed panel is one stream already
  EXPECT_FALSE(space.valid(g.to_config(host())));
  g.pack_b = false, g.prefetch = 16;  // one prefetch stream per tile
  EXPECT_FALSE(space.valid(g.to_config(host())));
}

// The buffer of partial sums (c_buf): one band of tiles over B read in place (mr = M, tiles
// side by side), K in more than one block, N whole tiles; not swapped or B packed.
TEST(ValidityRule, PartialSumsBufferOnlyForOneBandOverSeveralKBlocks) {
  const Workload w = Workload::matmul(8, 4096, 4096);
  const int nv = tile_fits_registers(8, 2, host().vector_registers()) ? 2 : 1;  // AVX2: 8 rows of one
  GemmConfig g = GemmConfig::from(make(8, nv * vec(), 96, 1536, false));
  g.kc = 8, g.order = LoopOrder::knm, g.c_buf = true;
  EXPECT_TRUE(gemm_space(w, host()).valid(g.to_config(host())));
  EXPECT_FALSE(gemm_space(Workload::matmul(8, 4096, 8), host()).valid(g.to_config(host())));  // one K block
  EXPECT_FALSE(gemm_space(Workload::matmul(8, 4096 - 1, 4096), host()).valid(g.to_config(host())));  // N edge
  EXPECT_FALSE(gemm_space(Workload::matmul(16, 4096, 4096), host()).valid(g.to_config(host())));  // two bands
  GemmConfig packed = g;
  packed.pack_b = true;
  EXPECT_FALSE(gemm_space(w, host()).valid(packed.to_config(host())));
  GemmConfig rows = g;
  rows.tiles = TileOrder::mn;
  EXPECT_FALSE(gemm_space(w, host()).valid(rows.to_config(host())));
}

TEST(ValidityRule, SpreadKBlocksOnlyForOneRowOverWholeBlocks) {
  const Workload w = Workload::matmul(1, 4096, 4096);
  GemmConfig g = GemmConfig::from(make(1, 2 * vec(), 96, 1536, false));
  g.kc = 8, g.order = LoopOrder::knm, g.prefetch_n = 128, g.k_spread = true;
  EXPECT_TRUE(gemm_space(w, host()).valid(g.to_config(host())));
  EXPECT_FALSE(gemm_space(Workload::matmul(1, 4096, 4100), host()).valid(g.to_config(host())));  // a short block
  EXPECT_FALSE(gemm_space(Workload::matmul(1, 4096, 8), host()).valid(g.to_config(host())));  // one block
  EXPECT_FALSE(gemm_space(Workload::matmul(1, 4096, 4096, true), host()).valid(g.to_config(host())));  // the dot tile
  EXPECT_FALSE(gemm_space(Workload::matmul(2, 4096, 4096), host()).valid(g.to_config(host())));  // two bands
  GemmConfig rows = g;
  rows.mr = 2;
  EXPECT_FALSE(gemm_space(Workload::matmul(2, 4096, 4096), host()).valid(rows.to_config(host())));
  GemmConfig down = g;
  down.prefetch_n = 0, down.prefetch = 8;
  EXPECT_FALSE(gemm_space(w, host()).valid(down.to_config(host())));
  GemmConfig packed = g;
  packed.pack_b = true, packed.prefetch_n = 0;
  EXPECT_FALSE(gemm_space(w, host()).valid(packed.to_config(host())));
}

TEST(ValidityRule, EveryValidPointHasItsTileInRegisters) {
  const Space space = gemm_space(Workload::matmul(64, 64, 64, true), host());
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<uint64_t> pick(0, space.cardinality() - 1);
  int valid = 0, dot = 0;
  // Four times the draws since c_buf and k_spread: each valid only for one band of tiles, each
  // halves the valid share.
  for (int i = 0; i < 120000; ++i) {
    const Config c = space.at(pick(rng));
    if (!space.valid(c)) continue;
    ++valid;
    const GemmConfig g = GemmConfig::from(c);
    const int nv = g.nr / vec();
    ASSERT_EQ(g.mc % g.mr, 0) << c.text();
    ASSERT_EQ(g.nc % g.nr, 0) << c.text();
    if (!g.pack_b) {
      ++dot;
      // The dot tile: rows × n accumulators, the rows of A and one vector of B.
      const int n = dot_columns(g.mr, host().vector_registers());
      ASSERT_GE(n, 1) << c.text();
      ASSERT_LE(g.mr * n + g.mr + 1, host().vector_registers()) << c.text();
      ASSERT_FALSE(g.pack_a) << c.text();
      continue;
    }
    // Accumulators, and one row of B or (fewer rows than vectors) every row's broadcast, + 1.
    ASSERT_LE(g.mr * nv + (g.mr < nv ? g.mr : nv) + 1, host().vector_registers()) << c.text();
    // Packed B has nothing to fetch along its rows; swapped, B's rows are the product's A.
    if (!g.swap) {
      ASSERT_EQ(g.prefetch_n, 0) << c.text();
    }
  }
  EXPECT_GT(valid, 100) << "the rule should leave a fair share of the space";
  EXPECT_GT(dot, 0) << "B transposed in place (the dot tile) is in the space";
}

TEST(SpaceEnumerate, MatchesTheFixedKnobsAndIsComplete) {
  const Workload w = Workload::matmul(127, 255, 129);
  const Space space = gemm_space(w, host());
  const std::string nr = std::to_string(wide());
  const std::string fixed = "mr=6 nr=" + nr + " kc=256 order=nkm split=m prefetch=0";
  const std::vector<Config> all = space.enumerate(fixed, 1000000);
  ASSERT_FALSE(all.empty());
  std::set<std::vector<int>> distinct;
  for (const Config& c : all) {
    ASSERT_TRUE(space.valid(c)) << c.text();
    EXPECT_EQ(c.get("mr"), 6);
    EXPECT_EQ(c.get("nr"), wide());
    EXPECT_EQ(c.get("kc"), 256);
    EXPECT_EQ(c.get("order"), int(LoopOrder::nkm));
    EXPECT_EQ(c.get("split"), int(Split::m));
    EXPECT_EQ(c.get("prefetch"), 0);
    distinct.insert(c.values());
  }
  EXPECT_EQ(distinct.size(), all.size()) << "enumerate returned duplicates";

  // Count independently: every combination of the free knobs, through the validity rule.
  const Config base = space.parse(with_knob(default_config(), "nr", nr));
  std::vector<int> values = base.values();
  size_t expected = 0;
  std::function<void(size_t)> walk = [&](size_t i) {
    if (i == values.size()) {
      expected += space.valid(Config(space.knob_list(), values));
      return;
    }
    const Knob& k = space.knobs()[i];
    if (fixed.find(k.name + "=") != std::string::npos) return walk(i + 1);
    for (int v : k.values) {
      values[i] = v;
      walk(i + 1);
    }
  };
  walk(0);
  EXPECT_EQ(all.size(), expected);
}

TEST(SpaceEnumerate, InvalidFixedCombinationGivesNothing) {
  const std::string nr = std::to_string(wide());
  const std::string v = " vec=" + std::to_string(vec());
  EXPECT_TRUE(
      gemm_space(Workload::matmul(8, 8, 8), host()).enumerate("mr=16 nr=" + nr + v + " kc=256 order=nkm", 1000000).empty());
  // B transposed read in place is the dot tile's, which reads A in place too.
  EXPECT_TRUE(gemm_space(Workload::matmul(8, 8, 8, true), host())
                  .enumerate("pack_b=0 pack_a=1 mr=6 nr=" + nr + v + " kc=256 order=nkm", 1000000)
                  .empty());
}

TEST(SpaceEnumerate, Errors) {
  const Space space = gemm_space(Workload::matmul(8, 8, 8), host());
  expect_invalid([&] { space.enumerate("tile=4", 10); }, {"unknown knob", "tile"}, "unknown knob");
  expect_invalid([&] { space.enumerate("kc=100", 10); }, {"kc", "100"}, "value not in domain");
  expect_invalid([&] { space.enumerate("mr=6", 10); }, {"more than 10"}, "over the limit");
}

TEST(SpaceSample, DistinctValidAndDeterministic) {
  const Space space = gemm_space(Workload::matmul(33, 70, 129, true), host());
  std::mt19937_64 rng1(5), rng2(5);
  const auto first = space.sample_distinct(rng1, 300);
  const auto second = space.sample_distinct(rng2, 300);
  ASSERT_EQ(first.size(), 300u);
  EXPECT_TRUE(first == second) << "same seed, different samples";
  std::set<std::vector<int>> distinct;
  for (const Config& c : first) {
    EXPECT_TRUE(space.valid(c)) << c.text();
    distinct.insert(c.values());
  }
  EXPECT_EQ(distinct.size(), first.size());
}

TEST(SpaceAt, CoversTheCardinality) {
  const Space space = gemm_space(Workload::matmul(8, 8, 8), host());
  uint64_t product = 1;
  for (const Knob& k : space.knobs()) product *= k.values.size();
  EXPECT_EQ(space.cardinality(), product);
  const Config first = space.at(0), last = space.at(space.cardinality() - 1);
  for (size_t i = 0; i < space.knobs().size(); ++i) {
    EXPECT_EQ(first.value(i), space.knobs()[i].values.front());
    EXPECT_EQ(last.value(i), space.knobs()[i].values.back());
  }
}

// The shapes the default rule must handle: every small M (its special cases), large and
// tall/wide shapes, transposed and far-apart rows of B, for several thread counts.
std::vector<Workload> default_rule_workloads() {
  std::vector<Workload> out;
  for (int64_t m : {1, 2, 3, 4, 5, 7, 8, 9, 16, 100, 1000})
    for (int64_t n : {1, 17, 64, 300})
      for (bool trans_b : {false, true}) out.push_back(Workload::matmul(m, n, 33, trans_b));
  Workload far = Workload::matmul(10, 20, 30);
  far.ldb = 512;
  out.push_back(far);
  out.push_back(Workload::matmul(3, 2000, 50));
  out.push_back(Workload::matmul(1000, 16, 64));
  // A few rows against a B larger than L2: the rule's bandwidth-bound branches (B read in
  // place; one row of A has a branch of its own; on Intel up to 48 rows, in several tiles).
  out.push_back(Workload::matmul(24, 1200, 520));
  out.push_back(Workload::matmul(8, 1200, 520));
  out.push_back(Workload::matmul(7, 1200, 520));
  out.push_back(Workload::matmul(7, 1200, 520, true));  // the dot tile's branch
  out.push_back(Workload::matmul(40, 1200, 520, true));  // one panel per N block (AMD AVX-512)
  out.push_back(Workload::matmul(40, 768, 700));  // B in place past L2 (full-width AMD AVX-512)
  out.push_back(Workload::matmul(2, 1200, 520));
  out.push_back(Workload::matmul(2, 1200, 520, true));
  out.push_back(Workload::matmul(1, 1200, 520));
  out.push_back(Workload::matmul(3, 1000, 300));  // rows under 4 KiB: long K blocks (Zen 4)
  out.push_back(Workload::matmul(200, 37, 300));  // 4 ymm and the N-edge tile (Zen 4)
  // In L2, with N a multiple of the tile or not (the AVX-512 branches for small squares).
  out.push_back(Workload::matmul(64, 64, 64));
  out.push_back(Workload::matmul(96, 96, 96));
  out.push_back(Workload::matmul(160, 160, 160));
  // Last columns on the dot edge (one, four) and on the N-edge tile.
  out.push_back(Workload::matmul(65, 65, 65));
  out.push_back(Workload::matmul(33, 132, 40, true));
  out.push_back(Workload::matmul(65, 68, 65));
  out.push_back(Workload::matmul(13, 21, 700, true));  // the dot tile on a B in L2
  out.push_back(Workload::matmul(24, 21, 700, true));  // and past 16 rows, with an edge band
  out.push_back(Workload::matmul(2100, 2000, 5));  // C past the caches: tiles along its rows (AMD)
  return out;
}

// The AVX-512 tile widths: ymm where N is narrow, whole zmm with the dot edge for a few
// columns past them, and 2–4 zmm as N's edge least wastes (a sixteenth fewer columns worked at
// least, a column of the dot edge as two).
TEST(DefaultRule, TileWidthFollowsN) {
  if (!host().avx512) GTEST_SKIP() << "AVX-512 branches";
  auto tile = [](int64_t m, int64_t n, int64_t k) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), host(), 1));
    return std::to_string(g.mr) + "x" + std::to_string(g.nr) + "/" + std::to_string(g.vec) + (g.pack_b ? " packed" : "");
  };
  // 16 columns and one on the dot edge (not 32) where the tile is as wide as a zmm.
  EXPECT_EQ(tile(1000, 17, 333), host().zmm_in_halves ? "8x24/8 packed" : "16x16/16");
  EXPECT_EQ(tile(33, 33, 33), "13x32/16");  // 32 and one on the dot edge, not 48
  // Where zmm run in halves, 4 ymm and the N-edge tile (40 columns, not 48).
  EXPECT_EQ(tile(1000, 40, 333), host().zmm_in_halves ? "6x32/8 packed" : "8x48/16");
  EXPECT_EQ(tile(100, 37, 300), host().zmm_in_halves ? "6x32/8" : "8x48/16");
  EXPECT_EQ(tile(96, 96, 96), "6x48/16");      // 96 columns, not 128
  EXPECT_EQ(tile(160, 160, 160), "12x32/16");  // 160, not 192
  EXPECT_EQ(tile(65, 68, 65), "6x64/16");      // 64 and 4 dot-edge columns (72), not 96
  // 264, not 288 (where zmm run in halves, 4 rows: M a multiple of 4, not of 6)
  EXPECT_EQ(tile(100, 260, 100), host().zmm_in_halves ? "4x64/16" : "6x64/16");
  EXPECT_EQ(tile(100, 100, 32), "6x48/16");    // 96 and 4 dot-edge columns (104), not 128
  EXPECT_EQ(tile(100, 100, 4), "4x64/16");     // no dot edge on K this short: 128 either way
  EXPECT_EQ(tile(40, 33, 8), "8x48/16");       // nor 32 and one on it
  EXPECT_EQ(tile(200, 1028, 512), "6x64/16");  // 1032, not 1056
  EXPECT_EQ(tile(513, 513, 513), "6x64/16 packed");  // a dot edge of one column: 528 either way
  EXPECT_EQ(tile(1025, 1025, 1025), "6x64/16 packed");
  EXPECT_EQ(tile(64, 64, 64), "4x64/16");
  EXPECT_EQ(tile(256, 256, 256), host().zmm_in_halves ? "4x64/16" : "6x64/16");
  EXPECT_EQ(tile(2048, 2048, 2048), "6x64/16 packed");
}

// 9..32 rows on full-width AVX-512 with B in L2: tiles 2 vectors wide, in the fewest bands of
// up to 13 rows, as even as they go (no thin edge band).
TEST(DefaultRule, NineToThirtyTwoRowsRunInTheFewestEvenBands) {
  Target t = zen5_core();
  t.l3_bytes = 32 << 20;
  auto tile = [&t](int64_t m, int64_t n, int64_t k) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), t, 1));
    return std::to_string(g.mr) + "x" + std::to_string(g.nr);
  };
  for (int64_t m : {9, 10, 11, 12, 13}) {
    EXPECT_EQ(tile(m, 256, 64), std::to_string(m) + "x32");
    EXPECT_EQ(tile(m, 100, 300), std::to_string(m) + "x32");
  }
  EXPECT_EQ(tile(14, 256, 300), "7x32");
  EXPECT_EQ(tile(15, 160, 64), "8x32");
  EXPECT_EQ(tile(16, 100, 64), "8x32");
  EXPECT_EQ(tile(19, 256, 300), "10x32");
  EXPECT_EQ(tile(26, 160, 300), "13x32");
  EXPECT_EQ(tile(31, 256, 64), "11x32");  // three bands
  EXPECT_EQ(tile(33, 256, 64), "6x64");   // past 32 rows, as before
  t.zmm_in_halves = true;
  EXPECT_EQ(tile(13, 256, 300), "6x64");  // unmeasured where zmm operations run in halves
}

// Long K on packed B (AVX-512): K blocks whose rows of A fill at most half of L1, even ones.
TEST(DefaultRule, KBlocksFollowL1) {
  Target t;
  t.avx2 = t.avx512 = true;
  auto blocks = [&t](int64_t l1d, int64_t m, int64_t n, int64_t k) {
    t.l1d_bytes = l1d;
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), t, 1));
    EXPECT_LE(int64_t(g.mr) * g.kc * 4, l1d / 2) << m << "x" << n << "x" << k;
    return "kc=" + std::to_string(g.kc) + " nc=" + std::to_string(g.nc);
  };
  EXPECT_EQ(blocks(48 * 1024, 2048, 2048, 2048), "kc=1024 nc=1024");
  EXPECT_EQ(blocks(48 * 1024, 512, 3072, 768), "kc=768 nc=1024");
  EXPECT_EQ(blocks(48 * 1024, 196, 256, 2304), "kc=768 nc=1024");
  EXPECT_EQ(blocks(32 * 1024, 2048, 2048, 2048), "kc=512 nc=1024");
  EXPECT_EQ(blocks(32 * 1024, 512, 3072, 768), "kc=384 nc=1024");
}

// Long K on B transposed and packed, on full-width AVX-512 AMD (Zen 5): one panel per N block,
// packed and used while in L2; elsewhere blocks of 1024 columns, and B as stored keeps them.
TEST(DefaultRule, LongKOnTransposedBPacksOnePanelPerBlockOnFullWidthAmd) {
  Target t = zen5_core();
  auto block = [&t](int64_t m, int64_t n, int64_t k, bool trans_b) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k, trans_b), t, 1));
    EXPECT_TRUE(g.pack_b && !g.swap) << m << "x" << n << "x" << k;
    return std::to_string(g.nr) + " nc=" + std::to_string(g.nc);
  };
  EXPECT_EQ(block(384, 2048, 2048, true), "64 nc=64");
  EXPECT_EQ(block(1024, 1024, 1024, true), "64 nc=64");
  EXPECT_EQ(block(1024, 1024, 1024, false), "64 nc=1024");
  EXPECT_EQ(block(1024, 1024, 512, true), "64 nc=1536");  // K in one block of 512
  t.zmm_in_halves = true;  // up to 1024 rows one-vector panels there (ManyRowsOnTransposedB...)
  EXPECT_EQ(block(2048, 1024, 1024, true), "64 nc=1024");
  t.zmm_in_halves = false, t.intel = true;
  EXPECT_EQ(block(1024, 1024, 1024, true), "64 nc=1024");
}

// The default tile, K block and split for M rows against a B of 4096 × 4096 (larger than any
// L2) on a number of threads.
struct StreamingTile {
  int64_t m;
  int threads;
  std::string want;
};

void expect_streaming_tiles(const Target& t, const std::vector<StreamingTile>& cases) {
  for (const StreamingTile& c : cases) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(c.m, 4096, 4096), t, c.threads));
    EXPECT_EQ(std::to_string(g.mr) + "x" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) +
                  (g.split == Split::n ? " split n" : ""),
              c.want)
        << "M = " << c.m << ", threads " << c.threads;
  }
}

// A few rows streaming B from memory on AVX2: tiles four vectors wide from 5 rows on (3 rows,
// or 2 where that leaves no edge tile), and two threads share N, each reading half of B.
TEST(DefaultRule, FewRowsStreamBInWideTilesOnAvx2) {
  Target t;
  t.avx2 = true;
  t.l2_bytes = 512 * 1024;
  expect_streaming_tiles(t, {{4, 1, "4x16 kc=8"},
                             {5, 1, "3x32 kc=8"},
                             {6, 1, "3x32 kc=8"},
                             {8, 1, "2x32 kc=8"},
                             {12, 1, "3x32 kc=8"},
                             {16, 1, "2x32 kc=8"},
                             {8, 2, "2x32 kc=8 split n"},
                             {16, 2, "2x32 kc=8 split n"}});
}

// A few rows streaming B from memory on Intel AVX-512 (up to 48; more pack B): blocks of 32
// rows of B, tiles two vectors wide holding all rows up to 12, else the fewest tiles of even
// heights; Zen 5 streams B along its rows in blocks of 8, its partial sums in the workspace.
TEST(DefaultRule, FewRowsStreamBInShortBlocksOnIntel) {
  Target t;
  t.avx2 = t.avx512 = t.intel = true;
  t.l1d_bytes = 48 * 1024, t.l2_bytes = 2048 * 1024;
  expect_streaming_tiles(t, {{1, 1, "1x64 kc=8"},
                             {2, 1, "2x32 kc=32"},
                             {8, 1, "8x32 kc=32"},
                             {9, 1, "9x32 kc=32"},
                             {12, 1, "12x32 kc=32"},
                             {13, 1, "7x32 kc=32"},
                             {16, 1, "8x32 kc=32"},
                             {24, 1, "12x32 kc=32"},
                             {32, 1, "11x32 kc=32"},
                             {8, 2, "8x32 kc=32 split n"},
                             {48, 2, "12x32 kc=32 split n"},
                             {64, 1, "6x64 kc=1024"}});
  t.intel = false;  // the partial sums in the workspace (c_buf), blocks of 8
  expect_streaming_tiles(t, {{8, 1, "8x32 kc=8"}, {9, 1, "5x64 kc=256"}});
}

// A few rows streaming B on full-width AVX-512 AMD (Zen 5): K blocks of 1024 unless B's rows
// sit a power of two of 1 KiB or more apart, then of 256; 9..16 rows in two tiles as wide as
// the registers hold, up to 13 on N of at most 512 in one tile of 2 vectors; the next tile's
// lines fetched ahead only where B's rows sit a multiple of 4 KiB apart. Zen 4 (zmm in
// halves) keeps tiles of 6, blocks of 256 and the fetch.
TEST(DefaultRule, FewRowsStreamBInTwoTilesOnFullWidthAmd) {
  Target t = zen5_core();
  auto tiles = [&t](int64_t m, int64_t n, int64_t k) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), t, 1));
    return std::to_string(g.mr) + "x" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) +
           " prefetch_n=" + std::to_string(g.prefetch_n);
  };
  EXPECT_EQ(tiles(8, 2048, 2048), "8x48 kc=256 prefetch_n=64");
  EXPECT_EQ(tiles(8, 3072, 1024), "8x48 kc=256 prefetch_n=64");  // 12 KiB: 3 × 4 KiB
  EXPECT_EQ(tiles(8, 1000, 1000), "8x48 kc=1024 prefetch_n=0");
  EXPECT_EQ(tiles(6, 2000, 700), "6x48 kc=768 prefetch_n=0");    // K in one block
  EXPECT_EQ(tiles(5, 768, 3072), "5x48 kc=256 prefetch_n=0");    // 3 KiB: 3 × 1 KiB
  EXPECT_EQ(tiles(8, 512, 4096), "8x48 kc=256 prefetch_n=0");    // 2 KiB
  EXPECT_EQ(tiles(9, 2048, 2048), "5x64 kc=256 prefetch_n=64");
  EXPECT_EQ(tiles(9, 200, 2000), "9x32 kc=1024 prefetch_n=0");
  EXPECT_EQ(tiles(12, 300, 3000), "12x32 kc=1024 prefetch_n=0");
  EXPECT_EQ(tiles(11, 800, 1500), "6x64 kc=768 prefetch_n=0");   // two even blocks
  EXPECT_EQ(tiles(13, 4096, 1024), "7x48 kc=256 prefetch_n=64");
  EXPECT_EQ(tiles(15, 233, 1939), "8x48 kc=1024 prefetch_n=0");  // 15 rows: no one tile
  EXPECT_EQ(tiles(16, 4096, 4096), "8x48 kc=256 prefetch_n=64");
  t.zmm_in_halves = true;
  EXPECT_EQ(tiles(8, 1000, 1000), "8x48 kc=256 prefetch_n=64");
  EXPECT_EQ(tiles(16, 4096, 4096), "6x64 kc=256 prefetch_n=64");
}

// One row of A over a B larger than L2 where zmm operations run in halves (Zen 4): B in place
// fetched down its columns 8 rows ahead where it is half of L3 or more, else not at all (not
// along its rows), in blocks of 64 rows where they are under 4 KiB within a quarter of L3; B
// transposed (the dot tile) fetched ahead from half of L3 on (several rows of A at any size).
// Full-width AVX-512 keeps the fetch along B in place.
TEST(DefaultRule, OneRowFetchesAheadFromHalfOfL3WhereZmmRunInHalves) {
  Target t = zen5_core();
  t.zmm_in_halves = true, t.l3_bytes = int64_t(32) << 20;
  auto fetch = [&t](const Workload& w) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(w, t, 1));
    return "prefetch=" + std::to_string(g.prefetch) + " prefetch_n=" + std::to_string(g.prefetch_n);
  };
  EXPECT_EQ(fetch(Workload::matmul(1, 4096, 4096)), "prefetch=8 prefetch_n=0");  // 64 MiB
  EXPECT_EQ(fetch(Workload::matmul(1, 2048, 2048)), "prefetch=8 prefetch_n=0");  // 16 MiB
  EXPECT_EQ(fetch(Workload::matmul(1, 1536, 1536)), "prefetch=0 prefetch_n=0");  // 9 MiB
  EXPECT_EQ(fetch(Workload::matmul(1, 1024, 1024)), "prefetch=0 prefetch_n=0");
  Workload padded = Workload::matmul(1, 1024, 2048);
  padded.ldb = 2048;  // rows of B 8 KiB apart: 16 MiB
  EXPECT_EQ(fetch(padded), "prefetch=8 prefetch_n=0");
  // Within a quarter of L3, rows of less than 4 KiB in blocks of 64.
  auto kc = [&t](int64_t n, int64_t k) {
    return GemmConfig::from(default_gemm_config(Workload::matmul(1, n, k), t, 1)).kc;
  };
  EXPECT_EQ(kc(1000, 1000), 64);
  EXPECT_EQ(kc(640, 2560), 64);
  EXPECT_EQ(kc(1024, 1024), 8);  // 4 KiB
  EXPECT_EQ(kc(768, 3072), 8);   // 9 MiB
  EXPECT_EQ(fetch(Workload::matmul(1, 2048, 2048, true)), "prefetch=0 prefetch_n=256");
  EXPECT_EQ(fetch(Workload::matmul(1, 2048, 1536, true)), "prefetch=0 prefetch_n=0");
  EXPECT_EQ(fetch(Workload::matmul(1, 768, 768, true)), "prefetch=0 prefetch_n=0");
  // Swapped, its B's rows ahead (SwapsWhereZmmRunInHalves).
  EXPECT_EQ(fetch(Workload::matmul(8, 768, 768, true)), "prefetch=0 prefetch_n=512");
  t.zmm_in_halves = false;
  EXPECT_EQ(fetch(Workload::matmul(1, 4096, 4096)), "prefetch=0 prefetch_n=128");
}

// One row of A over a B of 32 MiB or more on full-width AMD AVX-512 (Zen 5): K as 8 segments
// read side by side, the K loop unrolled whole, the partial sums in the workspace where N is
// whole tiles. Not where K is not whole blocks, nor over a B within 32 MiB, nor on Intel or
// where zmm operations run in halves.
TEST(DefaultRule, OneRowSpreadsKOverALargeBOnFullWidthAmd) {
  Target t = zen5_core();
  auto spread = [&t](int64_t n, int64_t k) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(1, n, k), t, 1));
    return "kc=" + std::to_string(g.kc) + " unroll=" + std::to_string(g.unroll) +
           " prefetch_n=" + std::to_string(g.prefetch_n) + " c_buf=" + std::to_string(g.c_buf) +
           " k_spread=" + std::to_string(g.k_spread);
  };
  EXPECT_EQ(spread(4096, 4096), "kc=8 unroll=8 prefetch_n=128 c_buf=1 k_spread=1");
  EXPECT_EQ(spread(3072, 3072), "kc=8 unroll=8 prefetch_n=128 c_buf=1 k_spread=1");  // 36 MiB
  EXPECT_EQ(spread(4100, 4096), "kc=8 unroll=8 prefetch_n=128 c_buf=0 k_spread=1");  // an N edge
  EXPECT_EQ(spread(4096, 4100), "kc=8 unroll=4 prefetch_n=128 c_buf=0 k_spread=0");  // a short K block
  EXPECT_EQ(spread(2048, 2048), "kc=8 unroll=4 prefetch_n=128 c_buf=0 k_spread=0");  // 16 MiB
  t.intel = true;
  EXPECT_TRUE(spread(4096, 4096).ends_with("c_buf=0 k_spread=0")) << spread(4096, 4096);
  t.intel = false, t.zmm_in_halves = true;
  EXPECT_TRUE(spread(4096, 4096).ends_with("c_buf=0 k_spread=0")) << spread(4096, 4096);
}

// Where zmm operations run in halves (Zen 4), 2 or 3 rows of A over a B within a quarter of L3
// whose rows are under 4 KiB: K in blocks of up to 1024, tiles 4 vectors wide, no fetch along
// B's rows. Rows of 4 KiB, a larger B or more rows keep blocks of 256 with the fetch.
TEST(DefaultRule, TwoOrThreeRowsWalkLongBlocksOfShortRowsWhereZmmRunInHalves) {
  Target t = zen5_core();
  t.zmm_in_halves = true, t.l3_bytes = int64_t(32) << 20;
  auto tile = [&t](int64_t m, int64_t n, int64_t k) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), t, 1));
    return "kc=" + std::to_string(g.kc) + " nr=" + std::to_string(g.nr) + " prefetch_n=" + std::to_string(g.prefetch_n);
  };
  EXPECT_EQ(tile(3, 1000, 1000), "kc=1024 nr=64 prefetch_n=0");
  EXPECT_EQ(tile(2, 768, 768), "kc=768 nr=64 prefetch_n=0");
  EXPECT_EQ(tile(3, 1000, 2000), "kc=1024 nr=64 prefetch_n=0");  // 7.6 MiB
  EXPECT_EQ(tile(2, 512, 1536), "kc=768 nr=64 prefetch_n=0");    // two even blocks
  EXPECT_EQ(tile(2, 1024, 1024), "kc=256 nr=48 prefetch_n=64");  // rows of 4 KiB
  EXPECT_EQ(tile(3, 768, 3072), "kc=256 nr=48 prefetch_n=64");   // 9 MiB
  EXPECT_EQ(tile(4, 768, 768), "kc=256 nr=48 prefetch_n=64");
  t.zmm_in_halves = false;
  EXPECT_EQ(tile(3, 1000, 1000), "kc=1024 nr=48 prefetch_n=0");
}

// Where zmm operations run in halves (Zen 4), 2 rows of A over a B of half of L3 or more, and
// 3 or 4 over one past L3, stream B as one row does: blocks of 8 rows, tiles 4 vectors
// wide across all of N, the next block fetched 8 rows ahead. Fewer bytes, rows under 1 KiB (or
// under 2 KiB with an edge tile) or more rows of A keep another walk. On full-width AVX-512
// (Zen 5) 2..8 rows, blocks of 16 or 32 rows over a B of 32 MiB or more with rows of 2048
// floats or more, 4 vectors wide where the tile holds them, else 3.
TEST(DefaultRule, FewRowsStreamLargeBAlongItsRowsOnAmd) {
  Target t = zen4_core();
  t.l3_bytes = int64_t(32) << 20;
  auto walk = [&t](int64_t m, int64_t n, int64_t k) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), t, 1));
    return "mr=" + std::to_string(g.mr) + " nr=" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) +
           " nc=" + std::to_string(g.nc) + " prefetch=" + std::to_string(g.prefetch) +
           " prefetch_n=" + std::to_string(g.prefetch_n);
  };
  const std::string streamed = " nr=64 kc=8 nc=4096 prefetch=8 prefetch_n=0";
  EXPECT_EQ(walk(2, 4096, 4096), "mr=2" + streamed);
  EXPECT_EQ(walk(2, 2048, 2048), "mr=2 nr=64 kc=8 nc=2048 prefetch=8 prefetch_n=0");  // 16 MiB
  EXPECT_EQ(walk(2, 4096, 1024), "mr=2" + streamed);                                  // 16 MiB
  EXPECT_EQ(walk(3, 4096, 4096), "mr=3" + streamed);
  EXPECT_EQ(walk(4, 4096, 11008), "mr=4" + streamed);
  EXPECT_EQ(walk(4, 11008, 4096), "mr=4" + streamed);  // N past the largest block: blocks of 4096
  const std::string walked = " nr=48 kc=256 nc=1536 prefetch=0 prefetch_n=64";
  EXPECT_EQ(walk(2, 1024, 1024), "mr=2" + walked);  // 4 MiB
  EXPECT_EQ(walk(2, 1536, 1536), "mr=2" + walked);  // 9 MiB
  EXPECT_EQ(walk(3, 2048, 2048), "mr=3" + walked);  // within L3
  EXPECT_EQ(walk(4, 2048, 2048), "mr=4" + walked);
  EXPECT_EQ(walk(5, 4096, 4096), "mr=5" + walked);
  EXPECT_EQ(walk(2, 256, 32768), "mr=2 nr=64 kc=8 nc=256 prefetch=8 prefetch_n=0");  // rows of 1 KiB
  EXPECT_NE(GemmConfig::from(default_gemm_config(Workload::matmul(2, 100, 40000), t, 1)).kc, 8);
  EXPECT_NE(GemmConfig::from(default_gemm_config(Workload::matmul(3, 300, 30000), t, 1)).kc, 8);  // an edge tile
  EXPECT_EQ(GemmConfig::from(default_gemm_config(Workload::matmul(2, 600, 30000), t, 1)).kc, 8);
  t.zmm_in_halves = false;
  auto full_width = [&t](int64_t m, int64_t n, int64_t k) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), t, 1));
    return "mr=" + std::to_string(g.mr) + " nr=" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) +
           " nc=" + std::to_string(g.nc) + " unroll=" + std::to_string(g.unroll) +
           " prefetch_n=" + std::to_string(g.prefetch_n) + " prefetch_c=" + std::to_string(g.prefetch_c) +
           " c_buf=" + std::to_string(g.c_buf);
  };
  // Blocks of 8 rows, the partial sums in the workspace, 4 vectors wide where the tile holds them.
  EXPECT_EQ(full_width(2, 4096, 4096), "mr=2 nr=64 kc=8 nc=4096 unroll=8 prefetch_n=128 prefetch_c=0 c_buf=1");
  EXPECT_EQ(full_width(3, 2048, 4096), "mr=3 nr=64 kc=8 nc=2048 unroll=8 prefetch_n=128 prefetch_c=0 c_buf=1");
  EXPECT_EQ(full_width(4, 4096, 4096), "mr=4 nr=64 kc=8 nc=4096 unroll=8 prefetch_n=128 prefetch_c=0 c_buf=1");
  EXPECT_EQ(GemmConfig::from(default_gemm_config(Workload::matmul(4, 1024, 4096), t, 1)).kc, 256);  // 16 MiB
  EXPECT_EQ(GemmConfig::from(default_gemm_config(Workload::matmul(2, 1024, 16384), t, 1)).kc, 256);  // short rows
  EXPECT_EQ(full_width(5, 4096, 4096), "mr=5 nr=64 kc=8 nc=4096 unroll=8 prefetch_n=128 prefetch_c=0 c_buf=1");
  EXPECT_EQ(full_width(6, 11008, 4096), "mr=6 nr=64 kc=8 nc=4096 unroll=8 prefetch_n=128 prefetch_c=0 c_buf=1");
  EXPECT_EQ(full_width(7, 4096, 4096), "mr=7 nr=32 kc=8 nc=4096 unroll=8 prefetch_n=128 prefetch_c=0 c_buf=1");
  EXPECT_EQ(full_width(8, 4096, 11008), "mr=8 nr=32 kc=8 nc=4096 unroll=8 prefetch_n=128 prefetch_c=0 c_buf=1");
  // N not whole tiles: in place, 3 vectors wide over blocks of 32.
  EXPECT_EQ(full_width(8, 4100, 4096), "mr=8 nr=48 kc=32 nc=3072 unroll=4 prefetch_n=128 prefetch_c=0 c_buf=0");
  EXPECT_EQ(GemmConfig::from(default_gemm_config(Workload::matmul(8, 1024, 4096), t, 1)).kc, 256);  // 16 MiB
  EXPECT_EQ(GemmConfig::from(default_gemm_config(Workload::matmul(9, 4096, 4096), t, 1)).kc, 256);
}

// B transposed, up to 32 rows of A against a B larger than L2 and 16 against one in it: the
// dot tile (B in place) in tiles of up to 4 rows, as even as they go, the next rows fetched
// ahead; two threads share a B larger than L2's N. More rows pack B. (On AVX-512 whose zmm
// operations run in halves, Zen 4, and on AVX2; full-width AVX-512 swaps past 8 rows.)
TEST(DefaultRule, FewRowsOnTransposedBUseTheDotTile) {
  for (const Target& t : {zen4_core(), [] {
         Target avx2;
         avx2.avx2 = true;
         avx2.l2_bytes = 512 * 1024;
         return avx2;
       }()}) {
    struct Case {
      int64_t m;
      int threads;
      const char* want;
    };
    for (const Case& c : std::initializer_list<Case>{{1, 1, "dot 1 rows, split m"},
                                                     {3, 1, "dot 3 rows, split m"},
                                                     {5, 1, "dot 3 rows, split m"},
                                                     {8, 1, "dot 4 rows, split m"},
                                                     {8, 2, "dot 4 rows, split n"},
                                                     {10, 1, "dot 4 rows, split m"},
                                                     {20, 1, "dot 4 rows, split m"}}) {
      if (c.m == 8 && t.zmm_in_halves) continue;  // swapped there (SwapsWhereZmmRunInHalves)
      const Workload w = Workload::matmul(c.m, 4096, 4096, true);
      const Config config = default_gemm_config(w, t, c.threads);
      const GemmConfig g = GemmConfig::from(config);
      EXPECT_TRUE(gemm_dot_form(w, g) && g.prefetch_n > 0) << config.text();
      EXPECT_EQ(std::string(gemm_dot_form(w, g) ? "dot " : "packed ") + std::to_string(g.mr) + " rows, split " +
                    (g.split == Split::n ? "n" : "m"),
                c.want)
          << "M = " << c.m << ", threads " << c.threads;
    }
    EXPECT_TRUE(GemmConfig::from(default_gemm_config(Workload::matmul(33, 4096, 4096, true), t, 1)).pack_b);
    for (const Workload& in_l2 : {Workload::matmul(8, 64, 64, true), Workload::matmul(13, 21, 700, true)})
      EXPECT_TRUE(gemm_dot_form(in_l2, GemmConfig::from(default_gemm_config(in_l2, t, 1)))) << in_l2.text();
  }
}

// B transposed in L2: the dot tile's rows by the model of dot_tile_rows
// (policy/dot_tile_rule.cpp), on a Zen 5 core's registers and caches; past 16 rows, packing B
// where the model puts the dot tile well below it.
TEST(DefaultRule, TransposedBInL2TakesTheRowsTheModelCostsLeast) {
  Target t = zen5_core();
  auto form = [&t](int64_t m, int64_t n, int64_t k) {
    const Workload w = Workload::matmul(m, n, k, true);
    const GemmConfig g = GemmConfig::from(default_gemm_config(w, t, 1));
    return gemm_dot_form(w, g) ? "dot " + std::to_string(g.mr) + " rows" : std::string(g.swap ? "swapped" : "packed");
  };
  EXPECT_EQ(form(13, 21, 700), "dot 7 rows");   // groups of 3 columns, 21 in 7 of them
  EXPECT_EQ(form(12, 300, 300), "dot 6 rows");  // 4 rows cost the same in 3 bands
  EXPECT_EQ(form(4, 64, 64), "dot 2 rows");     // 4 rows would leave 4 columns one by one
  EXPECT_EQ(form(8, 256, 256), "dot 8 rows");
  EXPECT_EQ(form(1, 512, 512), "dot 1 rows");
  EXPECT_EQ(form(8, 128, 2048), "dot 4 rows");  // A and B leave L1, but packing B costs more
  EXPECT_EQ(form(24, 21, 700), "dot 5 rows");   // packed tiles would compute 32 columns of 21
  EXPECT_EQ(form(32, 512, 512), "dot 3 rows");  // A from L2: a few rows, groups of 8
  EXPECT_EQ(form(24, 64, 2048), "packed");  // A and B from L2 at every height
  // K under 4 vectors: packed, unless N leaves most lanes of packed tiles empty.
  EXPECT_EQ(form(8, 128, 32), "packed");
  EXPECT_EQ(form(8, 32, 32), "packed");
  EXPECT_EQ(form(16, 40, 40), "dot 8 rows");
  EXPECT_EQ(form(7, 7, 40), "dot 7 rows");
  // B larger than L2: swapped, in phases over the power of two above M where none fit M.
  EXPECT_EQ(form(7, 4096, 4096), "swapped");
  EXPECT_EQ(form(8, 4096, 4096), "swapped");
  EXPECT_EQ(form(13, 4096, 4096), "swapped");
}

// The swapped form (C^T = B·A^T) on full-width AVX-512 (Zen 5): B transposed larger than L2
// with 9..128 rows of A (2..8 with phases), or in L2 with 33..128; tiles of 8 × 2 vectors (3
// where those take phases and 2 do not) up to 32 rows, else 6 × 4, all of M in one N block, K
// in blocks of up to 1024, split along B's rows (the computed product's M) on two threads,
// tiles interleaved where they fit. A bucket of M too. Not on Intel, not for B of few rows or
// more than 128 rows of A; Zen 4 has its own rule (SwapsWhereZmmRunInHalves).
TEST(DefaultRule, FewRowsOnLargeTransposedBSwapOnFullWidthAvx512) {
  Target t = zen5_core();
  auto form = [&t](const Workload& w, int threads) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(w, t, threads));
    if (!g.swap) return std::string("not swapped");
    return std::to_string(g.mr) + "x" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) +
           " nc=" + std::to_string(g.nc) + " split " + (g.split == Split::n ? "n" : "m");
  };
  auto mm = [](int64_t m, int64_t n, int64_t k) { return Workload::matmul(m, n, k, true); };
  EXPECT_EQ(form(mm(9, 4096, 4096), 1), "8x32 kc=4096 nc=64 split m");
  EXPECT_EQ(form(mm(32, 4096, 4096), 2), "8x32 kc=1024 nc=64 split m");
  EXPECT_EQ(form(mm(33, 4096, 4096), 1), "6x64 kc=1024 nc=64 split m");
  EXPECT_EQ(form(mm(128, 768, 768), 2), "6x64 kc=768 nc=128 split m");
  EXPECT_EQ(form(mm(64, 256, 512), 1), "6x64 kc=512 nc=64 split m");  // in L2
  EXPECT_EQ(form(mm(64, 256, 256), 1), "6x64 kc=256 nc=64 split m");
  // Past 32 rows K from 256 on: shorter, the transposed write of C costs more.
  EXPECT_EQ(form(mm(64, 256, 255), 1), "not swapped");
  EXPECT_EQ(form(mm(65, 65, 65), 1), "not swapped");
  EXPECT_EQ(form(mm(64, 20000, 64), 1), "not swapped");
  EXPECT_EQ(form(mm(16, 20000, 64), 1), "8x32 kc=64 nc=64 split m");
  // Under 9 rows only where M's columns fill the lanes in groups of a power of two
  // (gemm_phases), else the dot tile; on 3 vectors where 2 take no phases (M = 6, 12, 24).
  // Up to 16 rows from K = 2048 on, all of K in one block, B's rows fetched ahead.
  EXPECT_EQ(form(mm(8, 4096, 4096), 1), "8x32 kc=4096 nc=64 split m");
  EXPECT_EQ(form(mm(2, 4096, 4096), 1), "8x32 kc=4096 nc=64 split m");
  EXPECT_EQ(form(mm(6, 4096, 4096), 1), "8x48 kc=4096 nc=192 split m");
  EXPECT_EQ(form(mm(12, 4096, 4096), 1), "8x48 kc=4096 nc=192 split m");
  EXPECT_EQ(form(mm(24, 4096, 4096), 1), "8x48 kc=1024 nc=192 split m");
  auto fetched = [&t](const Workload& w) { return GemmConfig::from(default_gemm_config(w, t, 1)).prefetch_n; };
  EXPECT_EQ(fetched(mm(16, 4096, 4096)), 256);
  EXPECT_EQ(fetched(mm(8, 1024, 2048)), 256);
  EXPECT_EQ(fetched(mm(24, 4096, 4096)), 0);
  EXPECT_EQ(fetched(mm(16, 3072, 768)), 0);
  EXPECT_EQ(form(mm(10, 4096, 4096), 1), "8x32 kc=4096 nc=64 split m");  // 16 columns of 2 lanes
  EXPECT_EQ(form(mm(5, 4096, 4096), 1), "8x32 kc=4096 nc=64 split m");   // 8 columns of 4 lanes
  EXPECT_EQ(form(mm(7, 2048, 2048), 2), "8x32 kc=2048 nc=64 split m");
  EXPECT_EQ(form(mm(1, 4096, 4096), 1), "not swapped");
  EXPECT_EQ(form(mm(8, 4096, 4098), 1), "not swapped");  // K not a multiple of 4
  EXPECT_EQ(form(mm(24, 384, 384), 1), "not swapped");   // in L2: the dot tile
  EXPECT_EQ(form(mm(129, 4096, 4096), 1), "not swapped");
  EXPECT_EQ(form(mm(100, 32, 4096), 1), "not swapped");  // B of 32 rows
  EXPECT_EQ(form(Workload::matmul(32, 4096, 4096), 1), "not swapped");
  Workload bucket = mm(64, 4096, 4096);
  bucket.min_m = 33;
  EXPECT_EQ(form(bucket, 1), "6x64 kc=1024 nc=64 split m");
  // Tiles interleaved wherever B's rows come in whole groups of 8 tiles, 512 floats long or
  // more, and K in one block.
  auto interleaved = [&t](const Workload& w, int threads) {
    return GemmConfig::from(default_gemm_config(w, t, threads)).tiles == TileOrder::interleaved;
  };
  EXPECT_TRUE(interleaved(mm(8, 4096, 4096), 1));
  EXPECT_TRUE(interleaved(mm(7, 2048, 2048), 2));
  EXPECT_TRUE(interleaved(mm(16, 3072, 768), 1));
  EXPECT_FALSE(interleaved(mm(24, 4096, 4096), 1));   // K in blocks of 1024
  EXPECT_FALSE(interleaved(mm(16, 20000, 512), 1));   // 20000 rows of B: not whole groups of 64
  EXPECT_FALSE(interleaved(mm(16, 2048, 256), 1));     // short rows
  Target zen4 = t, intel = t;
  zen4.zmm_in_halves = true, intel.intel = true;
  EXPECT_FALSE(GemmConfig::from(default_gemm_config(mm(32, 4096, 4096), intel, 1)).swap);
  EXPECT_FALSE(GemmConfig::from(default_gemm_config(mm(10, 4096, 4096), zen4, 1)).swap);
  const GemmConfig on_zen4 = GemmConfig::from(default_gemm_config(mm(8, 4096, 4096), zen4, 1));
  EXPECT_TRUE(on_zen4.swap && on_zen4.tiles == TileOrder::nm);
}

// B transposed past L2 under the dot tile on full-width AVX-512 AMD (Zen 5): all of M's rows
// in one tile where it keeps 4 columns of B, or 3 over a B up to 16 MiB, or 2 over a B up to
// 12 MiB with K up to 1024 (there over the swapped form too); the next rows
// fetched ahead only for one row of A over a B too large for an L3 (56 MiB on). Zen 4 and
// Intel keep tiles of up to 4 rows and fetch ahead at every size past L2 (Zen 4 one row of A
// from half of L3 on: OneRowFetchesAheadFromHalfOfL3WhereZmmRunInHalves).
TEST(DefaultRule, DotTileOverStreamedBOnFullWidthAmd) {
  Target t = zen5_core();
  auto fetch = [&t](int64_t m, int64_t n, int64_t k) {
    const Workload w = Workload::matmul(m, n, k, true);
    const GemmConfig g = GemmConfig::from(default_gemm_config(w, t, 1));
    if (!gemm_dot_form(w, g)) return std::string("not the dot tile");
    return std::to_string(g.mr) + " rows, ahead " + std::to_string(g.prefetch_n);
  };
  EXPECT_EQ(fetch(1, 4096, 4096), "1 rows, ahead 256");  // 64 MiB
  EXPECT_EQ(fetch(1, 3584, 4096), "1 rows, ahead 256");  // 56 MiB
  EXPECT_EQ(fetch(1, 11008, 4096), "1 rows, ahead 256");
  EXPECT_EQ(fetch(1, 5120, 2560), "1 rows, ahead 0");  // 50 MiB
  EXPECT_EQ(fetch(1, 768, 768), "1 rows, ahead 0");
  EXPECT_EQ(fetch(1, 2048, 2048), "1 rows, ahead 0");
  EXPECT_EQ(fetch(5, 4096, 4096), "not the dot tile");  // swapped, 8 columns of 4 lanes
  EXPECT_EQ(fetch(5, 768, 768), "5 rows, ahead 0");
  EXPECT_EQ(fetch(7, 768, 768), "7 rows, ahead 0");
  EXPECT_EQ(fetch(7, 2048, 2048), "not the dot tile");  // 16 MiB
  EXPECT_EQ(fetch(7, 4096, 4096), "not the dot tile");
  EXPECT_EQ(fetch(1, 256, 256), "1 rows, ahead 0");  // in L2
  // Up to 12 MiB, one tile wherever it keeps 2 columns, over the swapped form too.
  EXPECT_EQ(fetch(9, 768, 768), "9 rows, ahead 0");
  EXPECT_EQ(fetch(3, 3072, 768), "3 rows, ahead 0");
  EXPECT_EQ(fetch(2, 3072, 1024), "2 rows, ahead 0");  // 12 MiB
  EXPECT_EQ(fetch(9, 2048, 2048), "not the dot tile");  // 16 MiB: swapped
  EXPECT_EQ(fetch(8, 768, 3072), "not the dot tile");   // K past 1024
  EXPECT_EQ(fetch(3, 2048, 2048), "not the dot tile");
  EXPECT_EQ(fetch(10, 768, 768), "not the dot tile");  // one column
  EXPECT_EQ(fetch(12, 768, 768), "not the dot tile");
  // Two threads share B's columns.
  const GemmConfig two = GemmConfig::from(default_gemm_config(Workload::matmul(5, 768, 768, true), t, 2));
  EXPECT_EQ(two.split, Split::n);
  Target zen4 = t, intel = t;
  zen4.zmm_in_halves = true, intel.intel = true;
  for (const Target& other : {zen4, intel})
    for (int64_t m : {1, 5}) {
      if (other.zmm_in_halves && m == 1) continue;
      const Workload w = Workload::matmul(m, 768, 768, true);
      const GemmConfig g = GemmConfig::from(default_gemm_config(w, other, 1));
      EXPECT_TRUE(gemm_dot_form(w, g) && g.prefetch_n == 256 && g.mr <= 4) << w.text();
    }
}

// B transposed and larger than L2, 33..128 rows of A, on AMD's AVX-512 in halves (Zen 4),
// where the swapped form does not take it (K under 256, M not a multiple of the vector; on two
// threads, B of fewer than 1024 rows per thread: SwapsWhereZmmRunInHalves): one packed panel
// of 4 vectors per N block under all rows, K in one block; two threads share N. Full-width
// AVX-512 (Zen 5), Intel, and more rows keep the general packed tile.
TEST(DefaultRule, MidRowsOnTransposedBPackOnePanelPerNBlockOnAmd) {
  Target t = zen4_core();
  auto form = [&t](int64_t m, int64_t n, int64_t k, int threads) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k, true), t, threads));
    return std::to_string(g.mr) + "x" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) +
           " nc=" + std::to_string(g.nc) + (g.pack_b ? " packed" : "") + " unroll=" + std::to_string(g.unroll) +
           " prefetch=" + std::to_string(g.prefetch) + (g.split == Split::n ? " split n" : "");
  };
  EXPECT_EQ(form(33, 4096, 255, 1), "4x64 kc=256 nc=64 packed unroll=8 prefetch=8");
  EXPECT_EQ(form(64, 8192, 192, 1), "4x64 kc=192 nc=64 packed unroll=8 prefetch=8");
  EXPECT_EQ(form(128, 8192, 128, 2), "4x64 kc=128 nc=64 packed unroll=8 prefetch=8 split n");
  EXPECT_EQ(form(128, 768, 768, 2), "4x64 kc=768 nc=64 packed unroll=8 prefetch=8 split n");
  EXPECT_NE(form(129, 8192, 128, 1).substr(0, 4), "4x64");
  t.zmm_in_halves = false;
  EXPECT_NE(form(64, 8192, 192, 1).substr(0, 4), "4x64");
  t.zmm_in_halves = t.intel = true;
  EXPECT_NE(form(64, 8192, 192, 1).substr(0, 4), "4x64");
}

// Where zmm operations run in halves (Zen 4) the swapped form takes B transposed and larger
// than L2 under 8..32 rows of A where they fill the tile's lanes (in phases, or 32 rows), under
// 33..128 in whole vectors from K = 256 on, and up to 512 where B also has at least 4 times as
// many rows: tiles of 8 × 2 or 3 vectors up to 32 rows, then 6 × 4, all of M in one N block,
// K in blocks of up to 1024 — all of K in phases, where packed A takes at most half of L2;
// on several threads only with B of at least 1024 rows per thread. Up to 12 rows, in phases,
// B's rows are fetched 512 floats ahead.
TEST(DefaultRule, SwapsWhereZmmRunInHalves) {
  Target t = zen4_core();
  auto form = [&t](int64_t m, int64_t n, int64_t k, int threads = 1) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k, true), t, threads));
    if (!g.swap) return std::string("not swapped");
    return std::to_string(g.mr) + "x" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) +
           " nc=" + std::to_string(g.nc) + " split " + (g.split == Split::n ? "n" : "m");
  };
  EXPECT_EQ(form(48, 4096, 4096), "6x64 kc=1024 nc=64 split m");
  EXPECT_EQ(form(64, 4096, 4096, 2), "6x64 kc=1024 nc=64 split m");
  EXPECT_EQ(form(128, 768, 768), "6x64 kc=768 nc=128 split m");
  EXPECT_EQ(form(96, 1536, 384), "6x64 kc=384 nc=128 split m");
  EXPECT_EQ(form(256, 3072, 768), "6x64 kc=768 nc=256 split m");
  EXPECT_EQ(form(512, 2048, 1024), "6x64 kc=1024 nc=512 split m");
  EXPECT_EQ(form(256, 1024, 4096), "6x64 kc=1024 nc=256 split m");
  EXPECT_EQ(form(200, 768, 3072), "not swapped");  // B of fewer than 4 rows per row of A
  EXPECT_EQ(form(100, 4096, 4096), "not swapped");  // M not a multiple of the vector
  EXPECT_EQ(form(80, 3000, 300), "6x64 kc=320 nc=128 split m");
  EXPECT_EQ(form(512, 2047, 1024), "not swapped");
  EXPECT_EQ(form(513, 8192, 1024), "not swapped");  // past kSwapMaxRows
  EXPECT_EQ(form(64, 4096, 255), "not swapped");    // K under 256
  EXPECT_EQ(form(12, 4096, 4096), "8x48 kc=4096 nc=192 split m");   // 4 phases
  EXPECT_EQ(form(16, 768, 3072), "8x32 kc=4096 nc=64 split m");     // 2 phases
  EXPECT_EQ(form(16, 4096, 16384), "8x32 kc=1024 nc=64 split m");   // packed A 1 MiB: in blocks
  EXPECT_EQ(form(32, 4096, 4096), "8x32 kc=1024 nc=64 split m");    // whole tiles
  EXPECT_EQ(form(20, 2048, 2048), "not swapped");                   // 20 of 32 lanes: the dot tile
  EXPECT_EQ(form(9, 4096, 4096), "not swapped");
  EXPECT_EQ(form(8, 4096, 4096), "8x32 kc=4096 nc=64 split m");     // 4 phases
  EXPECT_EQ(form(8, 4096, 4096, 2), "8x32 kc=4096 nc=64 split m");
  EXPECT_EQ(form(6, 4096, 4096), "not swapped");                    // under 8 rows: the dot tile
  auto fetch_ahead = [&t](int64_t m) {
    return GemmConfig::from(default_gemm_config(Workload::matmul(m, 4096, 4096, true), t, 1)).prefetch_n;
  };
  EXPECT_EQ(fetch_ahead(8), 512);
  EXPECT_EQ(fetch_ahead(12), 512);
  EXPECT_EQ(fetch_ahead(16), 0);
  EXPECT_EQ(fetch_ahead(32), 0);
  EXPECT_EQ(form(16, 256, 256), "not swapped");  // B in L2
  EXPECT_EQ(form(64, 256, 512), "not swapped");     // B in L2
  // On two threads, each packing all of A, B of at least 1024 rows per thread.
  EXPECT_EQ(form(256, 3072, 768, 2), "6x64 kc=768 nc=256 split m");
  EXPECT_EQ(form(128, 768, 768, 2), "not swapped");
  EXPECT_EQ(form(96, 2047, 3072, 2), "not swapped");
  EXPECT_FALSE(GemmConfig::from(default_gemm_config(Workload::matmul(64, 4096, 4096), t, 1)).swap);
}

// B transposed past L2 and packed under 129..1024 rows of A on one thread, where zmm operations
// run in halves (Zen 4): panels of one vector under tiles of 6 rows, one panel per N block, K
// in blocks of up to 1024, A fetched 4 steps ahead. More rows, two threads, and Zen 5 keep
// the 6 × 4-vector tile.
TEST(DefaultRule, ManyRowsOnTransposedBTakeOneVectorPanelsWhereZmmRunInHalves) {
  Target t = zen4_core();
  auto form = [&t](int64_t m, int64_t n, int64_t k, int threads = 1) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k, true), t, threads));
    return std::to_string(g.mr) + "x" + std::to_string(g.nr) + " kc=" + std::to_string(g.kc) + " mc=" +
           std::to_string(g.mc) + " nc=" + std::to_string(g.nc) + " prefetch=" + std::to_string(g.prefetch) +
           (g.swap ? " swapped" : "");
  };
  EXPECT_EQ(form(200, 768, 3072), "6x16 kc=1024 mc=576 nc=64 prefetch=4");
  EXPECT_EQ(form(512, 768, 768), "6x16 kc=768 mc=576 nc=64 prefetch=4");
  EXPECT_EQ(form(1024, 1024, 1024), "6x16 kc=1024 mc=576 nc=64 prefetch=4");
  EXPECT_EQ(form(256, 3072, 768).substr(0, 4), "6x64");  // swapped
  EXPECT_EQ(form(2048, 2048, 2048).substr(0, 4), "6x64");
  EXPECT_EQ(form(512, 768, 768, 2).substr(0, 4), "6x64");
  t.zmm_in_halves = false;
  EXPECT_EQ(form(512, 768, 768).substr(0, 4), "6x64");
}

// Fewer than 512 rows of A on AMD's AVX-512: B read where it lies while its K block times the
// power-of-two part of B's row stride (the rows' spread over L2's sets) stays within 3/4 of
// L2; past that, with more rows, and on Intel, B packed. Where zmm operations run in halves
// (Zen 4) up to 128 rows read it in place past the bound too, and with K in several blocks each
// tile fetches the next one's lines ahead.
TEST(DefaultRule, FewHundredRowsReadBInPlaceOnAmd) {
  Target t = zen5_core();
  auto packed = [&t](int64_t m, int64_t n, int64_t k, int64_t ldb = 0) {
    Workload w = Workload::matmul(m, n, k);
    if (ldb > 0) w.ldb = ldb;
    return GemmConfig::from(default_gemm_config(w, t, 1)).pack_b;
  };
  EXPECT_FALSE(packed(128, 768, 768));    // 768 rows of 1 KiB × 3
  EXPECT_FALSE(packed(256, 1000, 1000));  // 4000 bytes: 32 × 125
  EXPECT_FALSE(packed(96, 1536, 384));    // 384 rows of 2 KiB × 3
  EXPECT_TRUE(packed(128, 768, 1000));    // 1000 rows of 1 KiB × 3: past 3/4 of L2
  EXPECT_TRUE(packed(64, 1024, 1024));    // 4 KiB
  EXPECT_TRUE(packed(128, 768, 768, 1024));
  EXPECT_FALSE(packed(511, 768, 768));
  EXPECT_TRUE(packed(512, 768, 768));
  t.zmm_in_halves = true;
  EXPECT_FALSE(packed(128, 768, 768));
  EXPECT_FALSE(packed(128, 768, 1000));
  EXPECT_FALSE(packed(64, 1024, 1024));
  EXPECT_TRUE(packed(129, 768, 1000));
  EXPECT_FALSE(packed(300, 640, 640));
  EXPECT_TRUE(packed(512, 768, 768));
  // K in several blocks: the next tile's lines of B fetched ahead.
  auto ahead = [&t](int64_t m, int64_t n, int64_t k) {
    return GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k), t, 1)).prefetch_n;
  };
  EXPECT_EQ(ahead(64, 768, 3072), 64);
  EXPECT_EQ(ahead(128, 768, 768), 0);
  t.zmm_in_halves = false, t.intel = true;
  EXPECT_TRUE(packed(128, 768, 768));
}

// A K of a few steps and a C beyond the caches on AMD's AVX-512: tiles walk along C's rows,
// all of N in one block, fetching C's lines ahead; B read in place up to 8 rows. A C the
// caches hold (or L3, where that is smaller), K from 17 on, and Intel keep the walk down.
TEST(DefaultRule, ShortKWithCBeyondTheCachesWalksAlongRows) {
  Target t = zen5_core();
  t.l3_bytes = int64_t(32) << 20;
  auto walk = [&t](int64_t m, int64_t n, int64_t k, bool trans_b = false) {
    const GemmConfig g = GemmConfig::from(default_gemm_config(Workload::matmul(m, n, k, trans_b), t, 1));
    if (g.tiles == TileOrder::nm) return std::string("down") + (g.prefetch_c == 2 ? " fetching ahead" : "");
    return std::string("along") + (g.prefetch_c == 2 ? " fetching ahead" : "") + (g.pack_b ? " packed" : "") +
           (g.nc >= n ? " one block" : "");
  };
  EXPECT_EQ(walk(3000, 3000, 3), "along fetching ahead one block");
  EXPECT_EQ(walk(4096, 1024, 8), "along fetching ahead one block");
  EXPECT_EQ(walk(1024, 4096, 16), "along fetching ahead packed one block");
  EXPECT_EQ(walk(2048, 2048, 8, true), "along fetching ahead packed one block");
  EXPECT_EQ(walk(1448, 1448, 8), "down");  // 8.4 MB
  EXPECT_EQ(walk(2048, 2048, 17), "down");
  t.l3_bytes = int64_t(4) << 20;
  EXPECT_EQ(walk(1448, 1448, 8), "along fetching ahead one block");
  EXPECT_EQ(walk(1000, 1000, 8), "down");
  t.intel = true;
  EXPECT_EQ(walk(3000, 3000, 3), "down");
}

TEST(DefaultRule, GivesValidConfigs) {
  for (const Workload& w : default_rule_workloads()) {
    const Space space = gemm_space(w, host());
    for (int threads : {1, 2, 8, 64}) {
      Config c;
      ASSERT_NO_THROW(c = default_gemm_config(w, host(), threads)) << w.text() << " threads=" << threads;
      EXPECT_TRUE(space.valid(c)) << test::describe(w, &c) << " threads=" << threads;
    }
  }
}

// Every branch of the rule on every kind of target, over a grid dense in the small sizes
// where the branches meet (9×160×64 once got a 12-row tile on 9 rows).
TEST(DefaultRule, GivesValidConfigsOverAGridOfShapesOnEveryTarget) {
  Target zen5 = zen5_core();
  zen5.l3_bytes = 32 << 20;
  Target zen4 = zen5, intel = zen5, avx2;
  zen4.zmm_in_halves = true, zen4.l1d_bytes = 32 * 1024;
  intel.intel = true, intel.l2_bytes = 2 << 20;
  avx2.avx2 = true, avx2.l2_bytes = 512 * 1024;
  for (const auto& [name, t] : std::initializer_list<std::pair<const char*, Target>>{
           {"host", host()}, {"zen5", zen5}, {"zen4", zen4}, {"intel", intel}, {"avx2", avx2}})
    for (int64_t m : {1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 31, 33, 48, 97, 129, 600, 4000})
      for (int64_t n : {1, 3, 15, 17, 20, 33, 47, 50, 63, 65, 100, 129, 160, 195, 257, 453, 1000, 4100})
        for (int64_t k : {1, 3, 8, 15, 16, 27, 63, 64, 300, 700, 4100})
          for (bool trans_b : {false, true})
            for (int64_t pad : {0, 512}) {
              Workload w = Workload::matmul(m, n, k, trans_b);
              w.lda += pad, w.ldb += pad, w.ldc += pad;
              const Space space = gemm_space(w, t);
              for (int threads : {1, 2}) {
                Config c;
                ASSERT_NO_THROW(c = default_gemm_config(w, t, threads))
                    << name << ": " << w.text() << " threads=" << threads;
                ASSERT_TRUE(space.valid(c)) << name << ": " << test::describe(w, &c) << " threads=" << threads;
              }
            }
}

TEST(DefaultRule, ConfigsCompileAndMatchTheReference) {
  const auto all = default_rule_workloads();
  // Every fourth shape plus the special ones: about 25 compiles.
  for (size_t i = 0; i < all.size(); ++i) {
    if (i % 4 != 0 && i + 11 < all.size()) continue;
    Workload w = all[i];
    w.bias = i % 3 == 0;
    w.act = i % 2 ? ActivationKind::gelu : ActivationKind::relu;
    const Config c = default_gemm_config(w, host(), 2);
    SCOPED_TRACE(test::describe(w, &c));
    const test::Problem p(w, 100 + i);
    KernelPtr k;
    ASSERT_NO_THROW(k = compile_gemm(w, c));
    std::vector<float> got = p.c0;
    run_gemm_serial(*k, p.a.data(), p.b.data(), p.bias_ptr(), got.data());
    const std::string diff = test::compare_c(w, got, p.want, matmul_tolerance(w, 1.0));
    EXPECT_TRUE(diff.empty()) << diff;
  }
}

}  // namespace
}  // namespace livetune
