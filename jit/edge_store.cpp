#include "jit/edge_store.hpp"

#include <cmath>

namespace livetune {

extern "C" void livetune_store_edge(float* c, int64_t ldc, const float* tile, int64_t nr, int64_t rows,
                                    int64_t skip, int64_t cols, float f, int32_t read_c, int32_t fused) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = c + r * ldc;
    const float* acc = tile + r * nr;
    for (int64_t j = skip; j < cols; ++j)
      row[j] = !read_c ? acc[j] : fused ? std::fma(row[j], f, acc[j]) : row[j] + acc[j];
  }
}

}  // namespace livetune
