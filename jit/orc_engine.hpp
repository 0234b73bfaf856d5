#pragma once
// The CPU JIT engine. Each compiling thread owns its TargetMachine and turns IR into an
// object itself; one process-wide LLJIT only links objects (one ResourceTracker each), so
// compiles from several threads never share a compiler (see notes/jit-engines.md).
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <string>
#include <vector>

namespace livetune {

// Code linked into the JIT. Destroying it unmaps the code: the owner must make sure no
// caller is inside (Kernel objects are shared_ptr-owned for that reason).
class CodeHandle {
 public:
  explicit CodeHandle(llvm::orc::ResourceTrackerSP tracker) : tracker_(std::move(tracker)) {}
  ~CodeHandle();
  CodeHandle(const CodeHandle&) = delete;
  CodeHandle& operator=(const CodeHandle&) = delete;

 private:
  llvm::orc::ResourceTrackerSP tracker_;
};

struct LinkedCode {
  std::vector<void*> entries;  // one per symbol asked for
  std::shared_ptr<CodeHandle> code;
};

// This thread's TargetMachine for the host (created on first use).
llvm::TargetMachine& thread_target_machine();

// Runs the middle-end passes the generated IR needs (light: the generator already unrolls).
void optimize_module(llvm::Module& m, llvm::TargetMachine& tm);

// Machine code for `m` on this thread: an ELF object, or assembly text.
std::unique_ptr<llvm::MemoryBuffer> emit_object(llvm::Module& m, llvm::TargetMachine& tm);
std::string emit_assembly(llvm::Module& m, llvm::TargetMachine& tm);

// Links an object into the process-wide JIT and resolves each of `symbols` once.
LinkedCode link_object(std::unique_ptr<llvm::MemoryBuffer> object, const std::vector<std::string>& symbols);

}  // namespace livetune
