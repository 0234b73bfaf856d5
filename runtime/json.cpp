#include "runtime/json.hpp"

#include <cmath>
#include <cstdio>

namespace livetune {

std::string Json::quote(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') q += '\\', q += ch;
    else if (ch == '\n') q += "\\n";
    else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      q += buf;
    } else q += ch;
  }
  return q + "\"";
}

void Json::key(const std::string& k) {
  if (!first_.back()) out_ << ", ";
  first_.back() = false;
  if (!k.empty()) out_ << quote(k) << ": ";
}

Json& Json::begin_object(const std::string& k) {
  key(k);
  out_ << '{';
  first_.push_back(true);
  return *this;
}

Json& Json::end_object() {
  first_.pop_back();
  out_ << '}';
  return *this;
}

Json& Json::begin_array(const std::string& k) {
  key(k);
  out_ << '[';
  first_.push_back(true);
  return *this;
}

Json& Json::end_array() {
  first_.pop_back();
  out_ << ']';
  return *this;
}

Json& Json::field(const std::string& k, const std::string& value) {
  key(k);
  out_ << quote(value);
  return *this;
}

Json& Json::field(const std::string& k, double value) {
  key(k);
  if (!std::isfinite(value)) {
    out_ << "null";
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    out_ << buf;
  }
  return *this;
}

Json& Json::field(const std::string& k, int64_t value) {
  key(k);
  out_ << value;
  return *this;
}

Json& Json::field(const std::string& k, bool value) {
  key(k);
  out_ << (value ? "true" : "false");
  return *this;
}

Json& Json::null_field(const std::string& k) {
  key(k);
  out_ << "null";
  return *this;
}

}  // namespace livetune
