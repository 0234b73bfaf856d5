#pragma once
// The N-edge update of C for targets whose masked stores are slow (AVX2): the generated tile
// stores its accumulators to a tile on its stack and calls this precompiled loop, which
// writes only columns [skip, cols) of each row. A masked second copy of the tile's update cost
// 14% of an AVX2 tile's compile; this edge runs once per column of tiles at the N edge.
#include <cstdint>

namespace livetune {

// c[r·ldc + j] = tile[r·nr + j] + f·c[r·ldc + j] for r < rows, skip <= j < cols; C is not
// read at all when read_c is 0 (on the first K block with beta = 0 it may hold NaN); with
// fused, f·C + tile is one rounding (as the tile's fma), else f is 1 and it is an add.
extern "C" void livetune_store_edge(float* c, int64_t ldc, const float* tile, int64_t nr, int64_t rows,
                                    int64_t skip, int64_t cols, float f, int32_t read_c, int32_t fused);

}  // namespace livetune
