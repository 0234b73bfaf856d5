#pragma once
// Small IRBuilder helpers shared by the code generators.
#include <llvm/IR/IRBuilder.h>

#include <functional>

namespace livetune::ir {

// Emits `for (iv = start; iv < end; iv += step) body(iv)` over i64 values. The body may add
// blocks of its own; the loop continues from wherever the builder stands after it.
void emit_for(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end, int64_t step,
              const std::function<void(llvm::Value*)>& body, const char* name);

// Emits `if (cond) body()`; the builder stands after the if when it returns.
void emit_if(llvm::IRBuilder<>& b, llvm::Value* cond, const std::function<void()>& body);

llvm::Value* smin(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y);

}  // namespace livetune::ir
