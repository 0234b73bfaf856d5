#include "jit/ir_loops.hpp"

#include <string>

namespace livetune::ir {

void emit_for(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end, int64_t step, const std::vector<Walk>& walks,
              const std::function<void(llvm::Value*, const std::vector<llvm::Value*>&)>& body, const char* name) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b.getContext();
  std::string n(name);
  auto* pre = b.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx, n + ".head", f);
  auto* loop = llvm::BasicBlock::Create(ctx, n + ".body", f);
  auto* exit = llvm::BasicBlock::Create(ctx, n + ".exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2, n);
  iv->addIncoming(start, pre);
  std::vector<llvm::PHINode*> ptrs;
  for (const Walk& w : walks) {
    ptrs.push_back(b.CreatePHI(w.start->getType(), 2, n + ".ptr"));
    ptrs.back()->addIncoming(w.start, pre);
  }
  b.CreateCondBr(b.CreateICmpSLT(iv, end), loop, exit);
  b.SetInsertPoint(loop);
  body(iv, std::vector<llvm::Value*>(ptrs.begin(), ptrs.end()));
  llvm::BasicBlock* latch = b.GetInsertBlock();
  iv->addIncoming(b.CreateAdd(iv, b.getInt64(step), n + ".next", true, true), latch);
  for (size_t i = 0; i < walks.size(); ++i)
    ptrs[i]->addIncoming(b.CreateInBoundsGEP(b.getFloatTy(), ptrs[i], walks[i].stride), latch);
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

void emit_for(llvm::IRBuilder<>& b, llvm::Value* start, llvm::Value* end, int64_t step,
              const std::function<void(llvm::Value*)>& body, const char* name) {
  emit_for(b, start, end, step, {}, [&](llvm::Value* iv, const std::vector<llvm::Value*>&) { body(iv); }, name);
}

void emit_if(llvm::IRBuilder<>& b, llvm::Value* cond, const std::function<void()>& body) {
  if (auto* known = llvm::dyn_cast<llvm::ConstantInt>(cond)) {
    if (known->isOne()) body();
    return;
  }
  llvm::Function* f = b.GetInsertBlock()->getParent();
  auto* then = llvm::BasicBlock::Create(b.getContext(), "if.then", f);
  auto* done = llvm::BasicBlock::Create(b.getContext(), "if.done", f);
  b.CreateCondBr(cond, then, done);
  b.SetInsertPoint(then);
  body();
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

llvm::Value* smin(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y);
}

}  // namespace livetune::ir
