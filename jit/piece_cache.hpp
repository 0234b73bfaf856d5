#pragma once
// Generated pieces shared by every kernel that needs the same one: a process-wide map from a
// piece's key (gemm_pieces.hpp) to its code, which stays mapped while some kernel holds it.
// A variant that differs from a live one only in its blocking or loop order compiles nothing.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "jit/gemm_emitter.hpp"
#include "jit/orc_engine.hpp"

namespace livetune {

struct Piece {
  std::string key;
  void* fn = nullptr;
  std::shared_ptr<CodeHandle> code;  // shared by the pieces compiled in one module
};
using PiecePtr = std::shared_ptr<const Piece>;

struct PieceRequest {
  std::string key;
  std::function<void(GemmEmitter&, const std::string& symbol)> emit;
};

struct ObtainedPieces {
  std::vector<PiecePtr> pieces;  // one per request, in order
  int compiled = 0;              // how many were not live and were compiled now
};

// Live pieces come from the cache; the others are generated into one module, compiled on
// this thread, linked and published. `dump_header` heads the IR/assembly dumps.
ObtainedPieces obtain_pieces(const std::vector<PieceRequest>& requests, const std::string& dump_header);

}  // namespace livetune
