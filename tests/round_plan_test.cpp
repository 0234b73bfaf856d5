// sampler/candidate_source and sampler/round_plan: what one round of adaptive sampling
// proposes and then chooses to measure.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>

#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "sampler/candidate_source.hpp"
#include "sampler/round_plan.hpp"

namespace livetune {
namespace {

int knobs_differing(const Config& x, const Config& y) {
  int n = 0;
  for (size_t i = 0; i < x.values().size(); ++i) n += x.value(i) != y.value(i);
  return n;
}

TEST(ModelFreeSource, DistinctValidConfigsAroundTheIncumbentAndAtRandom) {
  const Space space = gemm_space(Workload::matmul(127, 255, 129), Target::host());
  std::mt19937_64 rng(5);
  const Config incumbent = space.sample(rng);
  ModelFreeSource source(0.5);
  const std::vector<Config> batch = source.propose(space, incumbent, 64, rng);
  ASSERT_EQ(batch.size(), 64u);
  std::set<std::string> texts;
  int near = 0;
  for (const Config& c : batch) {
    EXPECT_TRUE(space.valid(c)) << c.text();
    EXPECT_FALSE(c == incumbent);
    texts.insert(c.text());
    near += knobs_differing(c, incumbent) <= 2;
  }
  EXPECT_EQ(texts.size(), batch.size());
  // Local moves change one or two knobs; a random config of 14 knobs almost never does.
  EXPECT_GE(near, 24);

  std::mt19937_64 again(5);
  const Config same_incumbent = space.sample(again);
  const std::vector<Config> repeat = source.propose(space, same_incumbent, 64, again);
  ASSERT_EQ(repeat.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) EXPECT_EQ(repeat[i], batch[i]);
}

// Knobs a, b (sizes 1..64) and an enum e. Proposals in three groups far apart: a and b small
// (G1), a large (G2), b large (G3); four configs each.
Space group_space() {
  auto knobs = std::make_shared<KnobList>(KnobList{Knob{"a", {1, 2, 4, 8, 16, 32, 64}, {}},
                                                   Knob{"b", {1, 2, 4, 8, 16, 32, 64}, {}},
                                                   Knob{"e", {0, 1}, {"x", "y"}}});
  return Space(knobs, [](const Config&) { return true; });
}

std::vector<Config> group(const Space& s, std::vector<int> as, std::vector<int> bs) {
  std::vector<Config> out;
  for (int a : as)
    for (int b : bs) out.push_back(Config(s.knob_list(), {a, b, 0}));
  return out;
}

int group_of(const Config& c) { return c.get("a") >= 32 ? 2 : c.get("b") >= 32 ? 3 : 1; }

std::vector<Config> proposals(const Space& s) {
  std::vector<Config> all;
  for (auto g : {group(s, {1, 2}, {1, 2}), group(s, {32, 64}, {1, 2}), group(s, {1, 2}, {32, 64})})
    all.insert(all.end(), g.begin(), g.end());
  return all;
}

TEST(PlanRound, OneConfigPerClusterNeverOneMeasuredBefore) {
  const Space s = group_space();
  const std::vector<Config> all = proposals(s);
  // Three of G1's four measured already: G1 sends the fourth.
  const std::set<std::string> measured{"a=1 b=1 e=x", "a=1 b=2 e=x", "a=2 b=1 e=x"};
  const RoundPlan plan =
      plan_round(s, all, CostModel(), [&](const Config& c) { return measured.count(c.text()) > 0; }, {}, 3);
  EXPECT_EQ(plan.proposed, 12u);
  EXPECT_EQ(plan.kept, 12u);  // no model yet
  EXPECT_EQ(plan.clusters, 3u);
  ASSERT_EQ(plan.to_measure.size(), 3u);
  std::set<int> groups;
  for (const Config& c : plan.to_measure) {
    EXPECT_EQ(measured.count(c.text()), 0u) << c.text();
    groups.insert(group_of(c));
  }
  EXPECT_EQ(groups, (std::set<int>{1, 2, 3}));
  EXPECT_EQ(plan.synthesised, 1u);
  EXPECT_NE(std::find(plan.to_measure.begin(), plan.to_measure.end(), Config(s.knob_list(), {2, 2, 0})),
            plan.to_measure.end());
}

TEST(PlanRound, TheModelKeepsTheMorePromisingHalf) {
  const Space s = group_space();
  // Measured so far: time grows with a and falls with b.
  CostModel model;
  for (uint64_t i = 0; i < s.cardinality(); i += 3) {
    const Config c = s.at(i);
    model.add(c, std::exp(0.5 * std::log2(1.0 + c.get("a")) - 0.5 * std::log2(1.0 + c.get("b"))));
  }
  model.fit();
  const RoundPlan plan = plan_round(s, proposals(s), model, [](const Config&) { return false; }, {}, 3);
  EXPECT_EQ(plan.kept, 6u);
  ASSERT_FALSE(plan.to_measure.empty());
  for (const Config& c : plan.to_measure) EXPECT_NE(group_of(c), 2) << c.text();  // large a: slow
}

}  // namespace
}  // namespace livetune
