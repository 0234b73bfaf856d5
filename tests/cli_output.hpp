#pragma once
// Running the `livetune` program as a user does, and reading numbers and strings out of its
// JSON report without a JSON library.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace livetune::test {

struct Output {
  int status = -1;
  std::string out;
};

inline Output run(const std::string& command) {
  Output r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
  r.status = pclose(pipe);
  return r;
}

// The number after "key": at the report's top level or first inside an object; NaN if absent
// or not a number.
inline double number(const std::string& json, const std::string& key, size_t from = 0) {
  const size_t at = json.find("\"" + key + "\": ", from);
  if (at == std::string::npos) return std::nan("");
  const char* start = json.c_str() + at + key.size() + 4;
  char* end = nullptr;
  const double v = std::strtod(start, &end);
  return end == start ? std::nan("") : v;
}

// The numbers of a top-level array "key": [...].
inline std::vector<double> numbers(const std::string& json, const std::string& key) {
  std::vector<double> out;
  const size_t at = json.find("\"" + key + "\": [");
  if (at == std::string::npos) return out;
  const size_t open = json.find('[', at), close = json.find(']', open);
  std::istringstream in(json.substr(open + 1, close - open - 1));
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The text of the string "key": "..." (the first from `from`); empty if absent. Our reports
// escape no quotes inside the strings read this way (workload and config texts, names).
inline std::string text(const std::string& json, const std::string& key, size_t from = 0) {
  const size_t at = json.find("\"" + key + "\": \"", from);
  if (at == std::string::npos) return {};
  const size_t open = at + key.size() + 5;
  return json.substr(open, json.find('"', open) - open);
}

}  // namespace livetune::test
