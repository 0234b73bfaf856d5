#include "jit/gemm_emitter.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>

#include "jit/ir_loops.hpp"

namespace livetune {

GemmEmitter::GemmEmitter(llvm::LLVMContext& ctx, const Target& t)
    : ctx_(ctx),
      widest_(t.vector_floats()),
      registers_(t.vector_registers()),
      cheap_masks_(t.avx512),
      row_fetch_locality_(t.avx512 && !t.intel && !t.zmm_in_halves ? 3 : 2),
      m_(std::make_unique<llvm::Module>("livetune_gemm", ctx)),
      b_(ctx),
      f32_(llvm::Type::getFloatTy(ctx)),
      i64_(llvm::Type::getInt64Ty(ctx)),
      ptr_(llvm::PointerType::get(ctx, 0)) {
  m_->setTargetTriple(t.triple);
  use_width(widest_);
}

void GemmEmitter::use_width(int floats) {
  W_ = floats;
  vec_ = llvm::FixedVectorType::get(f32_, unsigned(floats));
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

// Lane numbers and counts are compared as i32 (one vector compare; as i64 two and a merge of
// the halves), so counts are clamped to W first. Counted with callgrind, this also made a
// compile 4% cheaper.
llvm::Value* GemmEmitter::lane_mask(llvm::Value* valid_lanes) {
  return b_.CreateICmpSLT(lane_numbers(), b_.CreateVectorSplat(unsigned(W_), clamped_count(valid_lanes, false)));
}

llvm::Value* GemmEmitter::lane_range_mask(llvm::Value* lo, llvm::Value* hi) {
  // lo <= lane < hi as one unsigned compare of lane - lo against hi - lo, rather than two
  // compares and an and-not; lo and hi clamped to [0, W], which keeps the lanes in range.
  llvm::Value* l = clamped_count(lo, true);
  llvm::Value* from_lo = b_.CreateSub(lane_numbers(), b_.CreateVectorSplat(unsigned(W_), l));
  return b_.CreateICmpULT(from_lo, b_.CreateVectorSplat(unsigned(W_), b_.CreateSub(clamped_count(hi, true), l)));
}

llvm::Value* GemmEmitter::lane_numbers() {
  std::vector<llvm::Constant*> lanes;
  for (int i = 0; i < W_; ++i) lanes.push_back(b_.getInt32(uint32_t(i)));
  return llvm::ConstantVector::get(lanes);
}

// A constant mask (a whole call's edges): a plain load or store, or none.
llvm::Value* GemmEmitter::load_vector(llvm::Value* ptr, llvm::Align align, llvm::Value* mask) {
  auto* known = llvm::dyn_cast_or_null<llvm::Constant>(mask);
  if (known && known->isNullValue()) return llvm::ConstantAggregateZero::get(vec_);
  if (!mask || (known && known->isAllOnesValue())) return b_.CreateAlignedLoad(vec_, ptr, align);
  return b_.CreateMaskedLoad(vec_, ptr, align, mask, llvm::ConstantAggregateZero::get(vec_));
}

void GemmEmitter::store_vector(llvm::Value* x, llvm::Value* ptr, llvm::Align align, llvm::Value* mask) {
  auto* known = llvm::dyn_cast_or_null<llvm::Constant>(mask);
  if (known && known->isNullValue()) return;
  if (known && known->isAllOnesValue()) mask = nullptr;
  if (mask)
    b_.CreateMaskedStore(x, ptr, align, mask);
  else
    b_.CreateAlignedStore(x, ptr, align);
}

llvm::Value* GemmEmitter::clamped_count(llvm::Value* count, bool at_least_zero) {
  llvm::Value* c = ir::smin(b_, count, i64(W_));
  if (at_least_zero) c = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, c, i64(0));
  return b_.CreateTrunc(c, b_.getInt32Ty());
}

void GemmEmitter::prefetch_vectors(llvm::Value* row, int vectors, bool write, int locality) {
  for (int v = 0; v < vectors; v += std::max(1, 16 / W_))  // one per 64-byte line
    b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr_},
                       {f32_ptr(row, int64_t(v) * W_), b_.getInt32(write ? 1 : 0), b_.getInt32(locality), b_.getInt32(1)});
}

void GemmEmitter::prefetch_lines(llvm::Value* from, int64_t lines) {
  for (int64_t l = 0; l < lines; ++l)
    b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr_},
                       {b_.CreateGEP(f32_, from, i64(16 * l)), b_.getInt32(0), b_.getInt32(row_fetch_locality_), b_.getInt32(1)});
}

llvm::Value* GemmEmitter::f32_ptr(llvm::Value* base, llvm::Value* index) {
  return b_.CreateInBoundsGEP(f32_, base, index);
}

llvm::Value* GemmEmitter::f32_ptr(llvm::Value* base, int64_t index) { return f32_ptr(base, i64(index)); }

GemmEmitter::LoopState GemmEmitter::emit_accumulating_loop(const LoopState& from, llvm::Value* bound, int64_t step,
                                                           const std::vector<int64_t>& advance,
                                                           std::vector<llvm::Value*>& acc, const LoopBody& body,
                                                           const std::string& name) {
  // Bounds known and close: the iterations one after another, straight (kStraightK).
  auto* p0 = llvm::dyn_cast<llvm::ConstantInt>(from.p);
  auto* end = llvm::dyn_cast<llvm::ConstantInt>(bound);
  if (p0 && end && end->getSExtValue() - p0->getSExtValue() <= kStraightK) {
    int64_t p = p0->getSExtValue();
    std::vector<llvm::Value*> ptrs = from.ptrs;
    for (; p + step <= end->getSExtValue(); p += step) {
      body(ptrs, acc);
      for (size_t i = 0; i < ptrs.size(); ++i) ptrs[i] = f32_ptr(ptrs[i], advance[i]);
    }
    return LoopState{i64(p), ptrs};
  }
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  auto* pre = b_.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(ctx_, name + ".head", f);
  auto* loop_body = llvm::BasicBlock::Create(ctx_, name + ".body", f);
  auto* exit = llvm::BasicBlock::Create(ctx_, name + ".exit", f);
  // The test's loop-invariant half, before the loop.
  llvm::Value* last = b_.CreateSub(bound, i64(step));
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode* p = b_.CreatePHI(i64_, 2, "p");
  p->addIncoming(from.p, pre);
  std::vector<llvm::PHINode*> ptrs, phis;
  for (llvm::Value* start : from.ptrs) {
    ptrs.push_back(b_.CreatePHI(ptr_, 2));
    ptrs.back()->addIncoming(start, pre);
  }
  for (llvm::Value* x : acc) {
    phis.push_back(b_.CreatePHI(vec_, 2));
    phis.back()->addIncoming(x, pre);
  }
  b_.CreateCondBr(b_.CreateICmpSLE(p, last), loop_body, exit);
  b_.SetInsertPoint(loop_body);
  std::vector<llvm::Value*> cur(phis.begin(), phis.end());
  body(std::vector<llvm::Value*>(ptrs.begin(), ptrs.end()), cur);
  p->addIncoming(b_.CreateAdd(p, i64(step)), b_.GetInsertBlock());
  for (size_t i = 0; i < ptrs.size(); ++i) ptrs[i]->addIncoming(f32_ptr(ptrs[i], advance[i]), b_.GetInsertBlock());
  for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(cur[i], b_.GetInsertBlock());
  b_.CreateBr(head);
  b_.SetInsertPoint(exit);
  acc.assign(phis.begin(), phis.end());
  return LoopState{p, std::vector<llvm::Value*>(ptrs.begin(), ptrs.end())};
}

}  // namespace livetune
