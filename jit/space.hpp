#pragma once
// The knobs of one kernel template for one workload: each knob has a name and a finite
// domain; a validity rule says which combinations may be compiled. A Config is one point.
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace livetune {

struct Knob {
  std::string name;
  std::vector<int> values;          // the domain, in order
  std::vector<std::string> labels;  // text for each value (enums); empty: the number itself

  std::string label(int value) const;
  int parse(std::string_view text) const;  // throws std::invalid_argument
  // The number a model sees for `value`: log2(1 + value) for sizes, the index for enums.
  double feature(int value) const;
};

using KnobList = std::vector<Knob>;

class Config {
 public:
  Config() = default;
  Config(std::shared_ptr<const KnobList> knobs, std::vector<int> values);

  int get(std::string_view knob) const;
  int value(size_t i) const { return values_[i]; }
  const std::vector<int>& values() const { return values_; }
  const KnobList& knobs() const { return *knobs_; }
  bool empty() const { return values_.empty(); }

  // "mr=6 nr=32 kc=256 ..." in knob order; parse accepts any order but needs every knob.
  std::string text() const;
  static Config parse(std::shared_ptr<const KnobList> knobs, std::string_view text);

  // One number per knob (log2 for sizes, index for enums): the input of cost models.
  std::vector<double> features() const;

  bool operator==(const Config& o) const { return values_ == o.values_; }

 private:
  std::shared_ptr<const KnobList> knobs_;
  std::vector<int> values_;
};

class Space {
 public:
  using Rule = std::function<bool(const Config&)>;
  Space(std::shared_ptr<const KnobList> knobs, Rule valid);

  const KnobList& knobs() const { return *knobs_; }
  std::shared_ptr<const KnobList> knob_list() const { return knobs_; }
  bool valid(const Config& c) const { return valid_(c); }

  // Number of points before the validity rule.
  uint64_t cardinality() const;
  Config at(uint64_t index) const;

  Config parse(std::string_view text) const;  // also checks validity
  // A uniformly random valid point (rejection sampling).
  Config sample(std::mt19937_64& rng) const;
  // `count` distinct valid points (fewer if the space has fewer).
  std::vector<Config> sample_distinct(std::mt19937_64& rng, size_t count) const;
  // Every valid point whose knobs agree with `fixed` ("kc=256 order=nkm": a partial text).
  std::vector<Config> enumerate(std::string_view fixed, size_t limit) const;

 private:
  std::shared_ptr<const KnobList> knobs_;
  Rule valid_;
};

}  // namespace livetune
