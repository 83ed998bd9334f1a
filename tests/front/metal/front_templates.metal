// Template kernels and the three ways real MSL instantiates them with [[host_name]].
#include <metal_stdlib>
using namespace metal;

template <typename T, int N = 2>
[[kernel]] void scale_by(device T* x [[buffer(0)]],
                         constant float& factor [[buffer(1)]],
                         uint i [[thread_position_in_grid]]) {
  x[i] = T(float(x[i]) * factor * float(N));
}

// MLX: template [[host_name(...)]] [[kernel]] decltype(f<...>) f<...>;
template [[host_name("scale_by_float")]] [[kernel]] decltype(scale_by<float>) scale_by<float>;

// MLX's instantiate_kernel macro.
#define instantiate_kernel(name, func, ...) \
  template [[host_name(name)]] [[kernel]] decltype(func<__VA_ARGS__>) func<__VA_ARGS__>;

#define instantiate_scale(tname, type, n) \
  instantiate_kernel("scale_by_" #tname "_x" #n, scale_by, type, n)

instantiate_scale(int, int, 3)
instantiate_scale(half, half, 4)

// ggml: typedef decltype(f<...>) f_t; template [[host_name(...)]] kernel f_t f<...>;
typedef decltype(scale_by<float, 4>) scale_by_t;
template [[host_name("scale_by_float_x4")]] kernel scale_by_t scale_by<float, 4>;

// A functor whose call operator is specialized inside the class, as MLX's unary ops are.
struct NegateInts {
  template <typename T>
  T operator()(T x) {
    return x * T(2);
  }
  template <>
  int operator()(int x) {
    return -x;
  }
};

template <typename T, typename Op>
[[kernel]] void apply_op(device T* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  x[i] = Op()(x[i]);
}
instantiate_kernel("apply_op_float", apply_op, float, NegateInts)
instantiate_kernel("apply_op_int", apply_op, int, NegateInts)
