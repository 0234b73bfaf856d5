#pragma once
// LIVETUNE_DUMP=ir,asm writes each compiled kernel's IR and/or assembly to a folder
// (LIVETUNE_DUMP_DIR, default ./livetune-dump), headed by its workload and config.
#include <string>

namespace livetune {

struct DumpRequest {
  bool ir = false;
  bool assembly = false;
  bool any() const { return ir || assembly; }
};

// Read from the environment once per process.
const DumpRequest& dump_request();

void dump_text(const std::string& kernel_name, const char* extension, const std::string& header,
               const std::string& text);

}  // namespace livetune
