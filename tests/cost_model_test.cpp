// sampler/cost_model: the online model that ranks proposals. Fitted to times generated from
// a known law within its reach, it must recover the law and name the knobs the law uses.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "sampler/cost_model.hpp"

namespace livetune {
namespace {

// Knobs a, b (sizes) and an enum e; the law: log t = 0.8·log2(1 + a) − 0.3·log2(1 + b)² − 5.
Space law_space() {
  auto knobs = std::make_shared<KnobList>(KnobList{Knob{"a", {1, 2, 4, 8, 16}, {}}, Knob{"b", {1, 2, 3, 4, 6}, {}},
                                                   Knob{"e", {0, 1, 2}, {"x", "y", "z"}}});
  return Space(knobs, [](const Config&) { return true; });
}

double law(const Config& c) {
  const double fa = std::log2(1.0 + c.get("a")), fb = std::log2(1.0 + c.get("b"));
  return std::exp(0.8 * fa - 0.3 * fb * fb - 5.0);
}

TEST(CostModel, RecoversALawWithinItsReach) {
  const Space s = law_space();
  CostModel m(1e-6);
  // Fit on every other config of the 75, check on the rest.
  for (uint64_t i = 0; i < s.cardinality(); i += 2) m.add(s.at(i), law(s.at(i)));
  m.fit();
  for (uint64_t i = 1; i < s.cardinality(); i += 2)
    EXPECT_NEAR(m.predict(s.at(i)), std::log(law(s.at(i))), 1e-3) << s.at(i).text();
  const std::vector<double> influence = m.knob_influence();
  ASSERT_EQ(influence.size(), 3u);
  EXPECT_GT(influence[0], 0.1);
  EXPECT_GT(influence[1], 0.1);
  EXPECT_LT(influence[2], 1e-3);  // e does not enter the law
}

TEST(CostModel, RanksBeforeItCanFitExactly) {
  // Five samples for 7 terms: the ridge keeps the fit finite, and the order of a fast and a
  // slow config it has not seen still comes out right.
  const Space s = law_space();
  CostModel m;
  for (const char* t : {"a=1 b=6 e=x", "a=16 b=1 e=y", "a=4 b=3 e=z", "a=2 b=2 e=x", "a=8 b=4 e=y"})
    m.add(s.parse(t), law(s.parse(t)));
  m.fit();
  EXPECT_LT(m.predict(s.parse("a=1 b=4 e=z")), m.predict(s.parse("a=16 b=2 e=z")));
}

TEST(CostModel, UnfittedPredictsTheSameForAll) {
  const Space s = law_space();
  CostModel m;
  EXPECT_EQ(m.predict(s.parse("a=1 b=1 e=x")), m.predict(s.parse("a=16 b=6 e=z")));
  EXPECT_TRUE(m.knob_influence().empty());
}

}  // namespace
}  // namespace livetune
