// Reports made inside metalsim's MSL headers: simdgroup_load and simdgroup_store run for the
// whole simdgroup in the engine (a collective's combine), far from the kernel's frame. Each report
// names the kernel's line that called the library, and the header line as its second line.
#include <metal_stdlib>
using namespace metal;

// uninit.threadgroup: threads 0..31 fill half of the tile; simdgroup_load reads all 64 floats.
kernel void planted_uninit_simdgroup_load(device const float* in [[buffer(0)]],
                                          device float* out [[buffer(1)]],
                                          uint tid [[thread_position_in_threadgroup]]) {
  threadgroup float tile[64];
  if (tid < 32) tile[tid] = in[tid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_float8x8 m;
  simdgroup_load(m, tile, 8);  // PLANT: planted_uninit_simdgroup_load
  simdgroup_store(m, out, 8);
}

// bounds.device: a 64-float buffer; an 8x8 load from element 8 reads 8 floats past its end.
kernel void planted_oob_simdgroup_load(device const float* in [[buffer(0)]],
                                       device float* out [[buffer(1)]]) {
  simdgroup_float8x8 m;
  simdgroup_load(m, in + 8, 8);  // PLANT: planted_oob_simdgroup_load
  simdgroup_store(m, out, 8);
}

// race.threadgroup: simdgroup 0 fills the tile, simdgroup 1 loads it, with no barrier between.
kernel void planted_race_simdgroup_load(device const float* in [[buffer(0)]],
                                        device float* out [[buffer(1)]],
                                        uint tid [[thread_position_in_threadgroup]],
                                        uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float tile[64];
  if (sg == 0) {
    for (uint i = tid; i < 64; i += 32) tile[i] = in[i];  // PLANT2: planted_race_simdgroup_load
  } else {
    // missing: threadgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_float8x8 m;
    simdgroup_load(m, tile, 8);  // PLANT: planted_race_simdgroup_load
    simdgroup_store(m, out, 8);
  }
}
