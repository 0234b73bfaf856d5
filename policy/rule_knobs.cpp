#include "policy/rule_knobs.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "jit/gemm_config.hpp"

namespace livetune {

const Knob& knob(const Space& s, const char* name) {
  for (const Knob& k : s.knobs())
    if (k.name == name) return k;
  throw std::logic_error(std::string("no knob ") + name);
}

int nearest_multiple(const Knob& knob, int want, int multiple_of) {
  int best = -1;
  for (int v : knob.values) {
    if (v % multiple_of != 0) continue;
    if (best < 0 || std::abs(v - want) < std::abs(best - want)) best = v;
  }
  if (best < 0) throw std::logic_error("no value of knob '" + knob.name + "' fits");
  return best;
}

int at_least(const Knob& knob, int64_t want, int multiple_of) {
  int best = -1, largest = -1;
  for (int v : knob.values) {
    if (v % multiple_of != 0) continue;
    if (v >= want && (best < 0 || v < best)) best = v;
    largest = std::max(largest, v);
  }
  if (largest < 0) throw std::logic_error("no value of knob '" + knob.name + "' fits");
  return best >= 0 ? best : largest;
}

int tallest_rows(const Knob& mr, int64_t most, int nv, int registers) {
  int tallest = 1;
  for (int rows : mr.values)
    if (rows <= most && tile_fits_registers(rows, nv, registers)) tallest = std::max(tallest, rows);
  return tallest;
}

}  // namespace livetune
