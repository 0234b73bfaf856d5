#pragma once
// One constructor per peer library, each defined in its own file, collected by registry.cpp.
#include <memory>

#include "tools/peers/peer.hpp"

namespace livetune::peers {

std::unique_ptr<Peer> make_openblas();
std::unique_ptr<Peer> make_onednn(bool pack_b);
std::unique_ptr<Peer> make_libxsmm();
std::unique_ptr<Peer> make_eigen();
std::unique_ptr<Peer> make_blis();

}  // namespace livetune::peers
