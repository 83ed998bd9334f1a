// C = A * B for row-major float matrices of any size: each threadgroup computes one 16 x 16 tile
// of C, staging 16 x 16 tiles of A and B in threadgroup memory, K in steps of 16. Dispatch whole
// 16 x 16 threadgroups (dispatchThreadgroups): every thread loads one element of each tile, and
// threads past an edge load zeros and store nothing.
#include <metal_stdlib>
using namespace metal;

constant uint TILE = 16;

struct MatmulShape {
  uint m;  // rows of A and C
  uint n;  // columns of B and C
  uint k;  // columns of A, rows of B
};

kernel void matmul_tiled(device const float* a [[buffer(0)]],
                         device const float* b [[buffer(1)]],
                         device float* c [[buffer(2)]],
                         constant MatmulShape& shape [[buffer(3)]],
                         uint2 gid [[thread_position_in_grid]],
                         uint2 lid [[thread_position_in_threadgroup]]) {
  threadgroup float a_tile[TILE][TILE];
  threadgroup float b_tile[TILE][TILE];
  const uint row = gid.y, col = gid.x;
  float acc = 0.0f;
  for (uint k0 = 0; k0 < shape.k; k0 += TILE) {
    const uint ak = k0 + lid.x, bk = k0 + lid.y;
    a_tile[lid.y][lid.x] = (row < shape.m && ak < shape.k) ? a[row * shape.k + ak] : 0.0f;
    b_tile[lid.y][lid.x] = (bk < shape.k && col < shape.n) ? b[bk * shape.n + col] : 0.0f;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint i = 0; i < TILE; ++i) acc += a_tile[lid.y][i] * b_tile[i][lid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (row < shape.m && col < shape.n) c[row * shape.n + col] = acc;
}

// The same product one element per thread, K in order: a reference for the tiled kernel (the
// case file matmul.json names it).
kernel void matmul_naive(device const float* a [[buffer(0)]],
                         device const float* b [[buffer(1)]],
                         device float* c [[buffer(2)]],
                         constant MatmulShape& shape [[buffer(3)]],
                         uint2 gid [[thread_position_in_grid]]) {
  if (gid.y >= shape.m || gid.x >= shape.n) return;
  float acc = 0.0f;
  for (uint k = 0; k < shape.k; ++k) acc += a[gid.y * shape.k + k] * b[k * shape.n + gid.x];
  c[gid.y * shape.n + gid.x] = acc;
}
