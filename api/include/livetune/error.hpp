#pragma once
#include <stdexcept>
#include <string>

namespace livetune {

// A bad argument from the caller. Names the argument and what was expected; when it is
// thrown, nothing the caller owns has been modified.
class Error : public std::invalid_argument {
 public:
  Error(std::string argument, const std::string& message)
      : std::invalid_argument(message), argument_(std::move(argument)) {}
  const std::string& argument() const { return argument_; }

 private:
  std::string argument_;
};

}  // namespace livetune
