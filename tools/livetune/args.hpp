#pragma once
// The command line of one subcommand: --name value flags and --switches.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace livetune::cli {

class Args {
 public:
  // `switches` are the flags that take no value. Throws std::invalid_argument.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& switches,
       const std::set<std::string>& valued);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  int64_t get_int(const std::string& name, int64_t fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace livetune::cli
