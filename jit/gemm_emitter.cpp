#include "jit/gemm_emitter.hpp"

#include <llvm/IR/Constants.h>

namespace livetune {

GemmEmitter::GemmEmitter(llvm::LLVMContext& ctx, const Workload& w, const GemmConfig& c, const Target& t,
                         std::string entry_name)
    : ctx_(ctx),
      entry_name_(std::move(entry_name)),
      w_(w),
      c_(c),
      W_(t.vector_floats()),
      nv_(c.nr / t.vector_floats()),
      m_(std::make_unique<llvm::Module>("livetune_gemm", ctx)),
      b_(ctx),
      f32_(llvm::Type::getFloatTy(ctx)),
      ptr_(llvm::PointerType::get(ctx, 0)),
      vec_(llvm::FixedVectorType::get(llvm::Type::getFloatTy(ctx), unsigned(t.vector_floats()))) {
  m_->setTargetTriple(t.triple);
}

std::unique_ptr<llvm::Module> GemmEmitter::emit() {
  emit_entry();
  return std::move(m_);
}

llvm::Function* GemmEmitter::new_function(const char* name, llvm::FunctionType* type, bool internal) {
  auto linkage = internal ? llvm::Function::InternalLinkage : llvm::Function::ExternalLinkage;
  auto* f = llvm::Function::Create(type, linkage, name, m_.get());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  // Without these, LLVM splits <16 x float> into 256-bit halves and spills (see notes).
  const std::string width = std::to_string(W_ * 32);
  f->addFnAttr("prefer-vector-width", width);
  f->addFnAttr("min-legal-vector-width", width);
  if (internal) f->addFnAttr(llvm::Attribute::NoInline);  // one copy of each variant: faster compiles
  for (auto& arg : f->args())
    if (arg.getType()->isPointerTy()) arg.addAttr(llvm::Attribute::NoAlias);
  return f;
}

llvm::Value* GemmEmitter::lane_mask(llvm::Value* valid_lanes) {
  std::vector<llvm::Constant*> lanes;
  for (int i = 0; i < W_; ++i) lanes.push_back(b_.getInt64(i));
  llvm::Value* iota = llvm::ConstantVector::get(lanes);
  return b_.CreateICmpSLT(iota, b_.CreateVectorSplat(unsigned(W_), valid_lanes));
}

llvm::Value* GemmEmitter::f32_ptr(llvm::Value* base, llvm::Value* index) {
  return b_.CreateInBoundsGEP(f32_, base, index);
}

llvm::Value* GemmEmitter::f32_ptr(llvm::Value* base, int64_t index) { return f32_ptr(base, i64(index)); }

}  // namespace livetune
