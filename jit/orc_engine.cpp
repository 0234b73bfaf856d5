#include "jit/orc_engine.hpp"

#include "jit/log.hpp"
#include "jit/target.hpp"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>
#include <stdexcept>

namespace livetune {
namespace {

// The generated loops carry their pointers and address everything as pointer + constant
// (gemm_microkernel.cpp), so LLVM's loop strength reduction has nothing to improve, and it
// cost 15% of a compile's instructions (callgrind). LLVM offers no switch per pipeline, only
// its process-wide option; one that the application set itself is left as it is. The post-RA
// list scheduler stays: without it a compile took 8% less in llc, but the kernels ran 1.5–2.5%
// slower (Zen 4, paired against oneDNN, three runs each: 1024³, 256³, 127×255×129, 512×3072×768
// B transposed).
void skip_loop_strength_reduction() {
  llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
  auto it = options.find("disable-lsr");
  if (it == options.end() || it->second->getNumOccurrences() > 0) return;
  if (it->second->addOccurrence(0, "disable-lsr", "true"))
    log(LogLevel::warn, "could not turn off LLVM's loop strength reduction; compiles take longer");
}

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    skip_loop_strength_reduction();
  });
}

std::string error_text(llvm::Error e) { return llvm::toString(std::move(e)); }

llvm::orc::LLJIT& process_jit() {
  // Never destroyed: kernels held by a static Runtime (a game engine's global) free their code
  // after main returns, later than a destructible static here; it had them wait forever on
  // the destroyed session's lock, and the process never exited.
  static llvm::orc::LLJIT& jit = []() -> llvm::orc::LLJIT& {
    initialize_llvm();
    auto built = llvm::orc::LLJITBuilder().create();
    if (!built) throw std::runtime_error("livetune: cannot create the LLVM JIT: " + error_text(built.takeError()));
    return *built->release();
  }();
  return jit;
}

std::string emit_file(llvm::Module& m, llvm::TargetMachine& tm, llvm::CodeGenFileType type,
                      llvm::SmallVector<char, 0>& out) {
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) return "the target cannot emit this file type";
  pm.run(m);
  return {};
}

}  // namespace

CodeHandle::~CodeHandle() {
  if (auto err = tracker_->remove()) log(LogLevel::error, "freeing JIT code failed: " + error_text(std::move(err)));
}

llvm::TargetMachine& thread_target_machine() {
  thread_local std::unique_ptr<llvm::TargetMachine> tm = [] {
    initialize_llvm();
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder) throw std::runtime_error("livetune: cannot detect the host target: " + error_text(builder.takeError()));
    builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    // Features the target withholds (LIVETUNE_ISA) turned off, after the host's own.
    for (const std::string& f : Target::host().withheld) builder->getFeatures().AddFeature(f, false);
    auto made = builder->createTargetMachine();
    if (!made) throw std::runtime_error("livetune: cannot create a target machine: " + error_text(made.takeError()));
    return std::move(*made);
  }();
  return *tm;
}

void optimize_module(llvm::Module& m, llvm::TargetMachine& tm) {
  m.setDataLayout(tm.createDataLayout());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  // No instcombine: the instruction selector folds what it folded in this IR (the inner loops
  // came out the same), and it cost 8% of a compile's instructions (callgrind).
  if (auto err = pb.parsePassPipeline(mpm, "function(simplifycfg,early-cse)"))
    throw std::runtime_error("livetune: bad pass pipeline: " + error_text(std::move(err)));
  mpm.run(m, mam);
}

namespace {

// The code generator's passes for one target machine, built once per compiling thread
// (building them cost a tenth of a small kernel's compile) and run on each module in turn.
// The stream writes straight into `bytes`, which each run hands on.
struct ObjectPipeline {
  explicit ObjectPipeline(llvm::TargetMachine& t) : tm(&t) {
    if (t.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      throw std::runtime_error("livetune: the target cannot emit object files");
  }
  llvm::TargetMachine* tm;
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os{bytes};
  llvm::legacy::PassManager pm;
};

}  // namespace

std::unique_ptr<llvm::MemoryBuffer> emit_object(llvm::Module& m, llvm::TargetMachine& tm) {
  thread_local std::unique_ptr<ObjectPipeline> pipeline;
  if (!pipeline || pipeline->tm != &tm) pipeline = std::make_unique<ObjectPipeline>(tm);
  pipeline->bytes.clear();
  pipeline->pm.run(m);
  auto object = std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(pipeline->bytes), m.getName(), false);
  pipeline->bytes.clear();  // moved from: empty again, and the stream's again
  return object;
}

std::string emit_assembly(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::SmallVector<char, 0> text;
  if (auto why = emit_file(m, tm, llvm::CodeGenFileType::AssemblyFile, text); !why.empty())
    throw std::runtime_error("livetune: " + why);
  return std::string(text.begin(), text.end());
}

LinkedCode link_object(std::unique_ptr<llvm::MemoryBuffer> object, const std::vector<std::string>& symbols) {
  llvm::orc::LLJIT& jit = process_jit();
  auto tracker = jit.getMainJITDylib().createResourceTracker();
  if (auto err = jit.addObjectFile(tracker, std::move(object)))
    throw std::runtime_error("livetune: linking a kernel failed: " + error_text(std::move(err)));
  LinkedCode linked{{}, std::make_shared<CodeHandle>(tracker)};
  for (const std::string& symbol : symbols) {
    auto addr = jit.lookup(symbol);
    if (!addr) throw std::runtime_error("livetune: kernel symbol not found: " + error_text(addr.takeError()));
    linked.entries.push_back(addr->toPtr<void*>());
  }
  return linked;
}

}  // namespace livetune
