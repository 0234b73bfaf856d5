#pragma once
// Sample synthesis (Chameleon): when the config nearest a cluster's centre cannot be measured
// — invalid, or measured before — one is made from the cluster: on the knobs that decide the
// speed (the dominant ones) the domain value nearest the members' mean, on the others the
// value most members share.
#include <functional>
#include <optional>
#include <vector>

#include "jit/space.hpp"
#include "sampler/clustering.hpp"

namespace livetune {

// `dominant[i]` for knob i of the space. The synthesised config if it is valid and `usable`;
// else the member nearest the members' mean that is; else none.
std::optional<Config> synthesise(const Space& space, const std::vector<Config>& members,
                                 const std::vector<bool>& dominant,
                                 const std::function<bool(const Config&)>& usable);

}  // namespace livetune
