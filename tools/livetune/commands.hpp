#pragma once
// The subcommands of the `livetune` program; each returns the process exit code.
#include <string>
#include <vector>

namespace livetune::cli {

int cmd_info(const std::vector<std::string>& args);
int cmd_bench(const std::vector<std::string>& args);
int cmd_check(const std::vector<std::string>& args);
int cmd_serve(const std::vector<std::string>& args);

}  // namespace livetune::cli
