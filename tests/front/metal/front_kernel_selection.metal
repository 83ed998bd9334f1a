// A library built with KERNELS (metalsim_add_metal_library): only the instances whose host name
// matches a pattern are registered, and the others are never instantiated. `left_out_short`
// would stop the build if it were: its static_assert rejects short.
#include <metal_stdlib>
using namespace metal;

template <typename T>
[[kernel]] void selection_scale(device T* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  static_assert(!metal::is_same_v<T, short>, "instantiated although KERNELS leaves it out");
  x[i] = x[i] * T(3);
}

#define instantiate_selection(name, type) \
  template [[host_name(name)]] [[kernel]] decltype(selection_scale<type>) selection_scale<type>;

instantiate_selection("selection_picked_float", float)
instantiate_selection("selection_picked_int", int)
instantiate_selection("selection_left_out_short", short)

[[kernel]] void selection_plain_kept(device float* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  x[i] = x[i] + 1.0f;
}

[[kernel]] void selection_plain_dropped(device float* x [[buffer(0)]],
                                        uint i [[thread_position_in_grid]]) {
  x[i] = 0.0f;
}
