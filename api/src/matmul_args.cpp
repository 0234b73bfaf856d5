#include "matmul_args.hpp"

#include <sstream>
#include <stdexcept>

namespace livetune::matmul_args {

void fail(const char* argument, const std::string& what) {
  throw Error(argument, std::string("matmul: argument '") + argument + "': " + what);
}

std::string shape_text(const TensorView& t) {
  std::ostringstream s;
  s << '[';
  for (int i = 0; i < t.rank; ++i) s << (i ? ", " : "") << t.shape[size_t(i)];
  s << ']';
  return s.str();
}

void explain(const TensorView& a, const TensorView& b, const TensorView& c, const MatmulOptions& opts) {
  check_call<true>(a, b, c, opts);
  // The two instantiations disagree: a bug of ours, not the caller's.
  throw std::logic_error("matmul: a check failed without naming an argument");
}

}  // namespace livetune::matmul_args
