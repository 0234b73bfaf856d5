#include "jit/dump.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace livetune {

const DumpRequest& dump_request() {
  static const DumpRequest request = [] {
    DumpRequest r;
    const char* env = std::getenv("LIVETUNE_DUMP");
    std::stringstream list(env ? env : "");
    std::string item;
    while (std::getline(list, item, ',')) {
      if (item == "ir") r.ir = true;
      if (item == "asm") r.assembly = true;
    }
    return r;
  }();
  return request;
}

void dump_text(const std::string& kernel_name, const char* extension, const std::string& header,
               const std::string& text) {
  const char* dir_env = std::getenv("LIVETUNE_DUMP_DIR");
  std::filesystem::path dir = dir_env && *dir_env ? dir_env : "livetune-dump";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream out(dir / (kernel_name + extension));
  std::istringstream lines(header);
  std::string line;
  const char* comment = std::string(extension) == ".ll" ? "; " : "# ";
  while (std::getline(lines, line)) out << comment << line << '\n';
  out << text;
}

}  // namespace livetune
