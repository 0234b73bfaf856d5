#pragma once
// Choosing knob values for the default rule (default_rule.cpp): the domain values nearest a
// wanted one, and the tallest register tile the registers hold.
#include <cstdint>

#include "jit/space.hpp"

namespace livetune {

const Knob& knob(const Space& s, const char* name);

// The domain value of `knob` closest to `want` that is a multiple of `multiple_of`.
int nearest_multiple(const Knob& knob, int want, int multiple_of);

// The smallest domain value of `knob` that is at least `want` and a multiple of
// `multiple_of`, else the largest such multiple.
int at_least(const Knob& knob, int64_t want, int multiple_of = 1);

// The tallest tile of `nv` vectors the registers hold, of at most `most` rows (at least 1).
int tallest_rows(const Knob& mr, int64_t most, int nv, int registers);

}  // namespace livetune
