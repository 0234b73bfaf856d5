#pragma once
// Small IRBuilder helpers shared by the code generators.
#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <vector>

namespace livetune::ir {

// Emits `for (iv = start; iv < end; iv += step) body(iv)` over i64 values. The body may add
// blocks of its own; the loop continues from wherever the builder stands after it.
void emit_for(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end, int64_t step,
              const std::function<void(llvm::Value*)>& body, const char* name);

// A float pointer a loop carries: `start` on entry, `stride` floats (an i64) further on each
// iteration. Loops address memory through these plus constants, not iv × stride: LLVM's
// loop strength reduction is off (orc_engine.cpp) and the products would be recomputed.
struct Walk {
  llvm::Value* start;
  llvm::Value* stride;
};

// emit_for whose body also gets the walks' pointers of this iteration, in their order.
void emit_for(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end, int64_t step, const std::vector<Walk>& walks,
              const std::function<void(llvm::Value*, const std::vector<llvm::Value*>&)>& body, const char* name);

// Emits `if (cond) body()`; the builder stands after the if when it returns.
void emit_if(llvm::IRBuilder<>& b, llvm::Value* cond, const std::function<void()>& body);

llvm::Value* smin(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y);

}  // namespace livetune::ir
