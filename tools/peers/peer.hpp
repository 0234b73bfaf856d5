#pragma once
// The libraries we measure ourselves against, behind one interface so that the bench CLI and
// tests can run any of them on a Workload with the same meaning as reference_matmul.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jit/workload.hpp"

namespace livetune::peers {

class Peer {
 public:
  virtual ~Peer() = default;

  virtual std::string name() const = 0;
  // How prepare() resolved this workload (the implementation or path the library chose), so a
  // report can say what was measured; empty before prepare().
  virtual std::string detail() const = 0;
  // Whether prepare() packs B once for all calls, so that a call does less work than one
  // that reads B as the caller holds it: a like-for-like peer only of livetune with a
  // constant B (ConstantMatrix).
  virtual bool packs_b_ahead() const { return false; }

  // One-time setup: primitives, kernels, thread count, and packing B for peers that pack it
  // (those read b here, so later changes to b are not seen). The buffers must outlive run().
  virtual void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
                       int threads) = 0;
  // Computes the whole workload into c: act(A·B + bias + beta·C_old); C_old is read only when beta != 0.
  virtual void run() = 0;
};

// Names accepted by make_peer, in a stable order.
std::vector<std::string> peer_names();
// Throws std::invalid_argument for a name not in peer_names().
std::unique_ptr<Peer> make_peer(std::string_view name);

}  // namespace livetune::peers
