#include "jit/space.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace livetune {
namespace {

// Reads "a=1 b=x" into name → text; rejects duplicates and malformed fields.
std::map<std::string, std::string, std::less<>> split_fields(std::string_view text) {
  std::map<std::string, std::string, std::less<>> out;
  std::istringstream in{std::string(text)};
  std::string field;
  while (in >> field) {
    auto eq = field.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("config text: expected knob=value, got '" + field + "'");
    if (!out.emplace(field.substr(0, eq), field.substr(eq + 1)).second)
      throw std::invalid_argument("config text: knob '" + field.substr(0, eq) + "' given twice");
  }
  return out;
}

}  // namespace

std::string Knob::label(int value) const {
  if (labels.empty()) return std::to_string(value);
  auto it = std::find(values.begin(), values.end(), value);
  return it == values.end() ? std::to_string(value) : labels[size_t(it - values.begin())];
}

int Knob::parse(std::string_view text) const {
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] == text) return values[i];
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && p == text.data() + text.size() && std::find(values.begin(), values.end(), v) != values.end())
    return v;
  std::string domain;
  for (int x : values) {
    if (!domain.empty()) domain += ',';
    domain += label(x);
  }
  throw std::invalid_argument("knob '" + name + "': expected one of {" + domain + "}, got '" + std::string(text) + "'");
}

Config::Config(std::shared_ptr<const KnobList> knobs, std::vector<int> values)
    : knobs_(std::move(knobs)), values_(std::move(values)) {
  if (values_.size() != knobs_->size()) throw std::invalid_argument("config: one value per knob expected");
}

int Config::get(std::string_view knob) const {
  for (size_t i = 0; i < knobs_->size(); ++i)
    if ((*knobs_)[i].name == knob) return values_[i];
  throw std::invalid_argument("config: no knob named '" + std::string(knob) + "'");
}

std::string Config::text() const {
  std::string s;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (i) s += ' ';
    s += (*knobs_)[i].name + "=" + (*knobs_)[i].label(values_[i]);
  }
  return s;
}

Config Config::parse(std::shared_ptr<const KnobList> knobs, std::string_view text) {
  auto fields = split_fields(text);
  std::vector<int> values;
  for (const Knob& k : *knobs) {
    auto it = fields.find(k.name);
    if (it == fields.end()) throw std::invalid_argument("config text: knob '" + k.name + "' is missing");
    values.push_back(k.parse(it->second));
    fields.erase(it);
  }
  if (!fields.empty()) throw std::invalid_argument("config text: unknown knob '" + fields.begin()->first + "'");
  return Config(std::move(knobs), std::move(values));
}

double Knob::feature(int value) const {
  if (!labels.empty()) return double(std::find(values.begin(), values.end(), value) - values.begin());
  return std::log2(1.0 + value);
}

std::vector<double> Config::features() const {
  std::vector<double> f;
  for (size_t i = 0; i < values_.size(); ++i) f.push_back((*knobs_)[i].feature(values_[i]));
  return f;
}

Space::Space(std::shared_ptr<const KnobList> knobs, Rule valid) : knobs_(std::move(knobs)), valid_(std::move(valid)) {}

uint64_t Space::cardinality() const {
  uint64_t n = 1;
  for (const Knob& k : *knobs_) n *= k.values.size();
  return n;
}

Config Space::at(uint64_t index) const {
  std::vector<int> values(knobs_->size());
  for (size_t i = knobs_->size(); i-- > 0;) {
    const auto& domain = (*knobs_)[i].values;
    values[i] = domain[index % domain.size()];
    index /= domain.size();
  }
  return Config(knobs_, std::move(values));
}

Config Space::parse(std::string_view text) const {
  Config c = Config::parse(knobs_, text);
  if (!valid(c)) throw std::invalid_argument("config '" + c.text() + "' is not valid for this workload and target");
  return c;
}

Config Space::sample(std::mt19937_64& rng) const {
  std::uniform_int_distribution<uint64_t> pick(0, cardinality() - 1);
  for (int attempt = 0; attempt < 1000000; ++attempt) {
    Config c = at(pick(rng));
    if (valid(c)) return c;
  }
  throw std::runtime_error("space: no valid config found by sampling");
}

std::vector<Config> Space::sample_distinct(std::mt19937_64& rng, size_t count) const {
  std::vector<Config> out;
  std::set<std::vector<int>> seen;
  for (size_t attempts = 0; out.size() < count && attempts < count * 50 + 1000; ++attempts) {
    Config c = sample(rng);
    if (seen.insert(c.values()).second) out.push_back(std::move(c));
  }
  return out;
}

std::vector<Config> Space::enumerate(std::string_view fixed, size_t limit) const {
  auto fields = split_fields(fixed);
  std::vector<std::vector<int>> domains;
  for (const Knob& k : *knobs_) {
    auto it = fields.find(k.name);
    domains.push_back(it == fields.end() ? k.values : std::vector<int>{k.parse(it->second)});
    if (it != fields.end()) fields.erase(it);
  }
  if (!fields.empty()) throw std::invalid_argument("config text: unknown knob '" + fields.begin()->first + "'");
  std::vector<Config> out;
  std::vector<size_t> idx(domains.size(), 0);
  while (true) {
    std::vector<int> values;
    for (size_t i = 0; i < domains.size(); ++i) values.push_back(domains[i][idx[i]]);
    Config c(knobs_, std::move(values));
    if (valid(c)) {
      if (out.size() == limit)
        throw std::invalid_argument("space: more than " + std::to_string(limit) +
                                    " valid configs; fix some knobs or sample randomly");
      out.push_back(std::move(c));
    }
    size_t i = domains.size();
    while (i > 0 && ++idx[i - 1] == domains[i - 1].size()) idx[--i] = 0;
    if (i == 0) break;
  }
  return out;
}

}  // namespace livetune
