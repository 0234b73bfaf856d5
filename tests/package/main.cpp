// Links the installed library and checks one call against a hand-computed result.
#include <livetune/livetune.hpp>

#include <cstdio>
#include <vector>

int main() {
  livetune::Runtime rt;
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0, 1, 1, 1}, c(4, 0.0f);  // a 2×3, b 3×2
  rt.matmul(livetune::TensorView::matrix(a.data(), 2, 3), livetune::TensorView::matrix(b.data(), 3, 2),
            livetune::TensorView::matrix(c.data(), 2, 2));
  const std::vector<float> want = {4, 5, 10, 11};
  if (c != want) {
    std::printf("consumer: wrong result %g %g %g %g\n", c[0], c[1], c[2], c[3]);
    return 1;
  }
  std::printf("consumer: livetune::livetune linked from the installed package, result correct\n");
  return 0;
}
