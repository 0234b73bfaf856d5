#include "tools/livetune/args.hpp"

#include <stdexcept>

namespace livetune::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& switches,
           const std::set<std::string>& valued) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0) throw std::invalid_argument("unexpected argument '" + a + "'");
    std::string name = a.substr(2), value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (valued.count(name)) {
      if (i + 1 >= argv.size()) throw std::invalid_argument("--" + name + " needs a value");
      value = argv[++i];
    }
    if (!switches.count(name) && !valued.count(name)) throw std::invalid_argument("unknown option --" + name);
    values_[name] = value;
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

int64_t Args::get_int(const std::string& name, int64_t fallback) const {
  if (!has(name)) return fallback;
  try {
    size_t used = 0;
    int64_t v = std::stoll(get(name), &used);
    if (used == get(name).size()) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("--" + name + ": expected an integer, got '" + get(name) + "'");
}

}  // namespace livetune::cli
