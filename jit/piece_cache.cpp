#include "jit/piece_cache.hpp"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "jit/dump.hpp"

namespace livetune {
namespace {

class PieceCache {
 public:
  PiecePtr find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = live_.find(key);
    return it == live_.end() ? nullptr : it->second.lock();
  }

  // Publishes `p` unless another thread published a live piece of the same key meanwhile;
  // returns the one to use.
  PiecePtr publish(PiecePtr p) {
    std::lock_guard lock(mutex_);
    auto& slot = live_[p->key];
    if (PiecePtr other = slot.lock()) return other;
    slot = p;
    if (live_.size() > 2 * size_after_purge_) purge();
    return p;
  }

 private:
  void purge() {
    for (auto it = live_.begin(); it != live_.end();) it = it->second.expired() ? live_.erase(it) : std::next(it);
    size_after_purge_ = std::max<size_t>(live_.size(), 64);
  }

  std::mutex mutex_;
  std::unordered_map<std::string, std::weak_ptr<const Piece>> live_;
  size_t size_after_purge_ = 64;
};

PieceCache& cache() {
  // Never destroyed, like the JIT (orc_engine.cpp): pieces of a static Runtime outlive main.
  static PieceCache& c = *new PieceCache;
  return c;
}

std::string module_text(const llvm::Module& m) {
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  return text;
}

}  // namespace

ObtainedPieces obtain_pieces(const std::vector<PieceRequest>& requests, const std::string& dump_header) {
  ObtainedPieces out;
  std::vector<size_t> missing;
  for (size_t i = 0; i < requests.size(); ++i) {
    out.pieces.push_back(cache().find(requests[i].key));
    if (!out.pieces.back()) missing.push_back(i);
  }
  if (missing.empty()) return out;

  static std::atomic<uint64_t> counter{0};
  const std::string module_name = "livetune_pieces_" + std::to_string(counter.fetch_add(1));
  llvm::LLVMContext ctx;
  GemmEmitter emitter(ctx, Target::host());
  std::vector<std::string> symbols;
  for (size_t i : missing) {
    symbols.push_back(module_name + "_" + std::to_string(symbols.size()));
    requests[i].emit(emitter, symbols.back());
  }
  std::unique_ptr<llvm::Module> module = emitter.take();
  std::string problems;
  llvm::raw_string_ostream problems_os(problems);
  if (llvm::verifyModule(*module, &problems_os))
    throw std::runtime_error("generated IR is invalid: " + problems + "\n" + dump_header);

  llvm::TargetMachine& tm = thread_target_machine();
  optimize_module(*module, tm);
  const DumpRequest& dump = dump_request();
  std::string header = dump_header;
  for (size_t i : missing) header += requests[i].key + "\n";
  if (dump.ir) dump_text(module_name, ".ll", header, module_text(*module));
  if (dump.assembly) dump_text(module_name, ".s", header, emit_assembly(*module, tm));

  LinkedCode linked = link_object(emit_object(*module, tm), symbols);
  for (size_t j = 0; j < missing.size(); ++j) {
    auto piece = std::make_shared<Piece>(Piece{requests[missing[j]].key, linked.entries[j], linked.code});
    out.pieces[missing[j]] = cache().publish(std::move(piece));
  }
  out.compiled = int(missing.size());
  return out;
}

}  // namespace livetune
