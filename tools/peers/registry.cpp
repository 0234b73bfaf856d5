#include <functional>
#include <stdexcept>
#include <utility>

#include "tools/peers/factories.hpp"
#include "tools/peers/peer.hpp"

namespace livetune::peers {
namespace {

using Factory = std::function<std::unique_ptr<Peer>()>;

const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> peers = {
      {"openblas", make_openblas},
      {"onednn", [] { return make_onednn(false); }},
      {"onednn_packed", [] { return make_onednn(true); }},
      {"libxsmm", make_libxsmm},
      {"eigen", make_eigen},
      {"blis", make_blis},
  };
  return peers;
}

}  // namespace

std::vector<std::string> peer_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Peer> make_peer(std::string_view name) {
  for (const auto& [n, factory] : registry())
    if (n == name) return factory();
  std::string known;
  for (const auto& [n, factory] : registry()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown peer '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace livetune::peers
