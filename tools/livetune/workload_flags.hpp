#pragma once
// The workload flags shared by the subcommands: --m --n --k --trans-b --bias --act --beta
// --lda --ldb --ldc.
#include <set>
#include <string>

#include "jit/workload.hpp"
#include "tools/livetune/args.hpp"

namespace livetune::cli {

extern const std::set<std::string> kWorkloadSwitches;
extern const std::set<std::string> kWorkloadValued;

Workload workload_from(const Args& args);

}  // namespace livetune::cli
