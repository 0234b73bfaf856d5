// sampler/clustering and sampler/synthesis: how adaptive sampling picks the few configs worth
// measuring from many proposals. Checked on point sets whose right answer is known by
// construction (well-separated blobs), and on a small space of its own.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>

#include "sampler/clustering.hpp"
#include "sampler/synthesis.hpp"

namespace livetune {
namespace {

// `per` points around each centre, within ±0.05 on every axis.
std::vector<Point> blobs(const std::vector<Point>& centres, int per, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Point> out;
  for (int i = 0; i < per; ++i)
    for (const Point& c : centres) {
      Point p = c;
      for (double& x : p) x += (double(rng() % 1001) / 1000.0 - 0.5) * 0.1;
      out.push_back(p);
    }
  return out;
}

const std::vector<Point> kThree{{0, 0}, {1, 0}, {0.5, 1}};

TEST(Normalise, EachDimensionToTheUnitRangeAndConstantOnesToZero) {
  const std::vector<Point> n = normalise({{2, 5, 7}, {4, 5, 1}, {3, 5, 4}});
  const std::vector<Point> want{{0, 0, 1}, {1, 0, 0}, {0.5, 0, 0.5}};
  EXPECT_EQ(n, want);
  EXPECT_TRUE(normalise({}).empty());
}

TEST(Kmeans, FindsWellSeparatedBlobs) {
  const std::vector<Point> points = blobs(kThree, 20, 1);
  const Clusters c = kmeans(points, 3, 42);
  ASSERT_EQ(c.centroids.size(), 3u);
  // Points i and j come from the same blob exactly when i ≡ j (mod 3).
  for (size_t i = 0; i < points.size(); ++i)
    for (size_t j = 0; j < points.size(); ++j) EXPECT_EQ(c.of[i] == c.of[j], i % 3 == j % 3) << i << " " << j;
  // Every point is within 0.05·√2 of its blob's centre, so of the centroid too.
  EXPECT_LT(c.loss, double(points.size()) * 0.005);
}

TEST(Kmeans, SameSeedSameClusters) {
  const std::vector<Point> points = blobs({{0, 0}, {1, 1}, {0, 1}, {1, 0}, {0.5, 0.5}}, 10, 3);
  const Clusters a = kmeans(points, 4, 9), b = kmeans(points, 4, 9);
  EXPECT_EQ(a.of, b.of);
  EXPECT_EQ(a.centroids, b.centroids);
}

TEST(Kmeans, NoMoreClustersThanDistinctPoints) {
  const std::vector<Point> points{{1, 1}, {1, 1}, {2, 2}, {2, 2}};
  const Clusters c = kmeans(points, 5, 1);
  EXPECT_EQ(c.centroids.size(), 2u);
  EXPECT_EQ(c.loss, 0.0);
  EXPECT_NE(c.of[0], c.of[2]);
  EXPECT_TRUE(kmeans({}, 3, 1).centroids.empty());
}

TEST(Knee, WhereTheCurveStopsFallingFast) {
  EXPECT_EQ(knee({100, 50, 10, 8, 6, 5, 4, 3}), 3);
  EXPECT_EQ(knee({100, 20, 15, 12, 10}), 2);
  EXPECT_EQ(knee({10, 10, 10}), 1);  // flat: nothing gained by more clusters
  EXPECT_EQ(knee({10, 5}), 1);       // too short to have a knee
}

TEST(ClusterAtKnee, AsManyClustersAsBlobs) {
  const std::vector<Point> four = blobs({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 15, 5);
  EXPECT_EQ(cluster_at_knee(four, 12, 7).centroids.size(), 4u);
  EXPECT_EQ(cluster_at_knee(blobs(kThree, 15, 6), 12, 7).centroids.size(), 3u);
}

TEST(Representatives, ThePointNearestEachCentroid) {
  const std::vector<Point> points{{0}, {1}, {2}, {10}, {11}, {13}};
  const Clusters c = kmeans(points, 2, 1);
  const std::vector<int> r = representatives(points, c);
  ASSERT_EQ(r.size(), 2u);
  const std::set<int> got(r.begin(), r.end()), want{1, 4};  // means 1 and 11.33
  EXPECT_EQ(got, want);
}

// Knobs a (sizes 1, 2, 4, 8), b (1..4) and an enum e; valid unless a = 8 and b = 4.
Space small_space() {
  auto knobs = std::make_shared<KnobList>(KnobList{Knob{"a", {1, 2, 4, 8}, {}}, Knob{"b", {1, 2, 3, 4}, {}},
                                                   Knob{"e", {0, 1, 2}, {"x", "y", "z"}}});
  return Space(knobs, [](const Config& c) { return !(c.get("a") == 8 && c.get("b") == 4); });
}

TEST(Synthesise, MeanOnDominantKnobsMostFrequentOnOthers) {
  const Space s = small_space();
  const std::vector<Config> members{s.parse("a=1 b=1 e=y"), s.parse("a=4 b=1 e=y"), s.parse("a=4 b=3 e=z")};
  auto any = [](const Config&) { return true; };
  // a dominant: mean of log2(1 + a) over 1, 4, 4 is 1.88, nearest log2(1 + 2) = 1.58; b and e:
  // the most frequent values.
  EXPECT_EQ(synthesise(s, members, {true, false, false}, any)->text(), "a=2 b=1 e=y");
  // b dominant too: mean of log2(1 + b) over 1, 1, 3 is 1.33, nearest log2(1 + 2) = 1.58.
  EXPECT_EQ(synthesise(s, members, {true, true, false}, any)->text(), "a=2 b=2 e=y");
}

TEST(Synthesise, FallsBackToTheUsableMemberNearestTheMean) {
  const Space s = small_space();
  // The means of log2(1 + a) and log2(1 + b) are 2.89 and 2.21: a = 8, b = 4 is invalid. By
  // distance to the mean the members are a=8 b=4 (invalid too), a=8 b=3, a=4 b=4.
  const std::vector<Config> members{s.parse("a=8 b=3 e=x"), s.parse("a=4 b=4 e=x"),
                                    Config(s.knob_list(), {8, 4, 0})};
  std::set<std::string> measured{"a=8 b=3 e=x"};
  auto unmeasured = [&](const Config& c) { return !measured.count(c.text()); };
  const std::vector<bool> all{true, true, true};
  EXPECT_EQ(synthesise(s, members, all, unmeasured)->text(), "a=4 b=4 e=x");
  measured.insert("a=4 b=4 e=x");
  EXPECT_FALSE(synthesise(s, members, all, unmeasured).has_value());
  EXPECT_FALSE(synthesise(s, {}, all, unmeasured).has_value());
}

}  // namespace
}  // namespace livetune
