#include "jit/gemm_emitter.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>

namespace livetune {

GemmEmitter::GemmEmitter(llvm::LLVMContext& ctx, const Target& t)
    : ctx_(ctx),
      W_(t.vector_floats()),
      m_(std::make_unique<llvm::Module>("livetune_gemm", ctx)),
      b_(ctx),
      f32_(llvm::Type::getFloatTy(ctx)),
      i64_(llvm::Type::getInt64Ty(ctx)),
      ptr_(llvm::PointerType::get(ctx, 0)),
      vec_(llvm::FixedVectorType::get(llvm::Type::getFloatTy(ctx), unsigned(t.vector_floats()))) {
  m_->setTargetTriple(t.triple);
}

llvm::Function* GemmEmitter::begin_function(const std::string& name, const std::vector<llvm::Type*>& args) {
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), args, false);
  auto* f = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m_.get());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  // Without these, LLVM splits <16 x float> into 256-bit halves and spills (see notes).
  const std::string width = std::to_string(W_ * 32);
  f->addFnAttr("prefer-vector-width", width);
  f->addFnAttr("min-legal-vector-width", width);
  for (auto& arg : f->args())
    if (arg.getType()->isPointerTy()) arg.addAttr(llvm::Attribute::NoAlias);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  return f;
}

llvm::Value* GemmEmitter::lane_mask(llvm::Value* valid_lanes) {
  std::vector<llvm::Constant*> lanes;
  for (int i = 0; i < W_; ++i) lanes.push_back(b_.getInt64(i));
  llvm::Value* iota = llvm::ConstantVector::get(lanes);
  return b_.CreateICmpSLT(iota, b_.CreateVectorSplat(unsigned(W_), valid_lanes));
}

llvm::Value* GemmEmitter::lane_range_mask(llvm::Value* lo, llvm::Value* hi) {
  // lo <= lane < hi as one unsigned compare of lane - lo against hi - lo, rather than two
  // compares and an and-not.
  std::vector<llvm::Constant*> lanes;
  for (int i = 0; i < W_; ++i) lanes.push_back(b_.getInt64(i));
  llvm::Value* from_lo = b_.CreateSub(llvm::ConstantVector::get(lanes), b_.CreateVectorSplat(unsigned(W_), lo));
  return b_.CreateICmpULT(from_lo, b_.CreateVectorSplat(unsigned(W_), b_.CreateSub(hi, lo)));
}

void GemmEmitter::prefetch_vectors(llvm::Value* row, int vectors, bool write, int locality) {
  for (int v = 0; v < vectors; v += std::max(1, 16 / W_))  // one per 64-byte line
    b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr_},
                       {f32_ptr(row, int64_t(v) * W_), b_.getInt32(write ? 1 : 0), b_.getInt32(locality), b_.getInt32(1)});
}

llvm::Value* GemmEmitter::f32_ptr(llvm::Value* base, llvm::Value* index) {
  return b_.CreateInBoundsGEP(f32_, base, index);
}

llvm::Value* GemmEmitter::f32_ptr(llvm::Value* base, int64_t index) { return f32_ptr(base, i64(index)); }

}  // namespace livetune
