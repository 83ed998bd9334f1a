// Texture kernels of the texture tests (texture_kernel_test.cpp): each is checked against a
// scalar model of the MSL specification, in both execution modes.
#include <metal_stdlib>
using namespace metal;

// ------------------------------ texture_mirror_affine
// dst(x, y) = src(w - 1 - x, y) * scale + bias, through the formats' conversions.
kernel void texture_mirror_affine(texture2d<float, access::read> src [[texture(0)]],
                                  texture2d<float, access::write> dst [[texture(1)]],
                                  constant float2& scale_bias [[buffer(0)]],
                                  uint2 gid [[thread_position_in_grid]]) {
  if (gid.x >= dst.get_width() || gid.y >= dst.get_height()) return;
  const uint2 from(src.get_width() - 1 - gid.x, gid.y);
  dst.write(src.read(from) * scale_bias.x + scale_bias.y, gid);
}

// ------------------------------ texture_resample
// A resize: each output pixel samples the source at its centre, normalized, with the bound
// sampler; the filtered value goes to a float4 buffer unconverted.
kernel void texture_resample(texture2d<float, access::sample> src [[texture(0)]],
                             sampler smp [[sampler(0)]],
                             device float4* out [[buffer(0)]],
                             constant uint2& size [[buffer(1)]],
                             uint2 gid [[thread_position_in_grid]]) {
  if (gid.x >= size.x || gid.y >= size.y) return;
  const float2 at = (float2(gid) + 0.5f) / float2(size);
  out[gid.y * size.x + gid.x] = src.sample(smp, at);
}

// The same at arbitrary coordinates (pixel or normalized, as the sampler says): out[i] samples
// coords[i], so tests reach every address mode outside [0, 1].
kernel void texture_sample_at(texture2d<float> src [[texture(0)]], sampler smp [[sampler(0)]],
                              device const float2* coords [[buffer(0)]],
                              device float4* out [[buffer(1)]],
                              uint i [[thread_position_in_grid]]) {
  out[i] = src.sample(smp, coords[i]);
}

// A sampler declared in the kernel: the constexpr constructor, arguments in any order.
kernel void texture_sample_constexpr(texture2d<half> src [[texture(0)]],
                                     device const float2* coords [[buffer(0)]],
                                     device float4* out [[buffer(1)]],
                                     uint i [[thread_position_in_grid]]) {
  constexpr sampler s(filter::linear, address::mirrored_repeat, coord::normalized);
  out[i] = float4(src.sample(s, coords[i]));
}

// ------------------------------ texture_buffer_axpy
// y = a * x + y over texture buffers (y read and written in place).
kernel void texture_buffer_axpy(texture_buffer<float, access::read> x [[texture(0)]],
                                texture_buffer<float, access::read_write> y [[texture(1)]],
                                constant float& a [[buffer(0)]],
                                uint i [[thread_position_in_grid]]) {
  if (i >= y.get_width()) return;
  y.write(a * x.read(i) + y.read(i), i);
}

// ------------------------------ texture_square_in_place
// A read_write texture updated in place: t = t * t - 0.25.
kernel void texture_square_in_place(texture2d<float, access::read_write> t [[texture(0)]],
                                    uint2 gid [[thread_position_in_grid]]) {
  const float4 v = t.read(gid);
  t.fence();
  t.write(v * v - 0.25f, gid);
}

// ------------------------------ texture_integer_mad
// Integer and half textures: dst = src * k + c per component, in T (a template, instantiated
// below).
template <typename T>
kernel void texture_integer_mad(texture2d<T, access::read> src [[texture(0)]],
                                texture2d<T, access::write> dst [[texture(1)]],
                                constant int2& kc [[buffer(0)]],
                                uint2 gid [[thread_position_in_grid]]) {
  const vec<T, 4> v = src.read(gid);
  dst.write(v * T(kc.x) + T(kc.y), gid);
}
template [[host_name("texture_mad_uint")]] kernel void texture_integer_mad<uint>(
    texture2d<uint, access::read>, texture2d<uint, access::write>, constant int2&, uint2);
template [[host_name("texture_mad_int")]] kernel void texture_integer_mad<int>(
    texture2d<int, access::read>, texture2d<int, access::write>, constant int2&, uint2);
template [[host_name("texture_mad_ushort")]] kernel void texture_integer_mad<ushort>(
    texture2d<ushort, access::read>, texture2d<ushort, access::write>, constant int2&, uint2);
template [[host_name("texture_mad_short")]] kernel void texture_integer_mad<short>(
    texture2d<short, access::read>, texture2d<short, access::write>, constant int2&, uint2);
template [[host_name("texture_mad_half")]] kernel void texture_integer_mad<half>(
    texture2d<half, access::read>, texture2d<half, access::write>, constant int2&, uint2);

// ------------------------------ texture1d_reverse
kernel void texture1d_reverse(texture1d<float, access::read> src [[texture(0)]],
                              texture1d<float, access::write> dst [[texture(1)]],
                              uint i [[thread_position_in_grid]]) {
  dst.write(src.read(src.get_width() - 1 - i), i);
}
