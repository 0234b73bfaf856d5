#pragma once
// A minimal JSON writer (the CLI's --json output, Runtime::stats()): objects, arrays, strings, numbers.
#include <sstream>
#include <string>
#include <vector>

namespace livetune {

class Json {
 public:
  Json& begin_object(const std::string& key = "");
  Json& end_object();
  Json& begin_array(const std::string& key = "");
  Json& end_array();
  Json& field(const std::string& key, const std::string& value);
  Json& field(const std::string& key, const char* value) { return field(key, std::string(value)); }
  Json& field(const std::string& key, double value);
  Json& field(const std::string& key, int64_t value);
  Json& field(const std::string& key, int value) { return field(key, int64_t(value)); }
  Json& field(const std::string& key, bool value);
  Json& null_field(const std::string& key);
  Json& value(const std::string& v) { return field("", v); }  // an array element
  Json& value(double v) { return field("", v); }
  std::string str() const { return out_.str(); }

  static std::string quote(const std::string& s);

 private:
  void key(const std::string& k);
  std::ostringstream out_;
  std::vector<bool> first_{true};
};

}  // namespace livetune
