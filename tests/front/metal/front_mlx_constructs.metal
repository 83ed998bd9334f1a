// Self-made stand-ins for the constructs MLX's kernel files need (docs/yardstick.md), so CI guards
// them without third-party code. Each kernel is checked against a scalar model in
// tests/front/mlx_constructs_test.cpp.
#include <metal_stdlib>
using namespace metal;

// ------------------------------ function constants declared through a specifier macro (fft.h)
#define MY_CONST static constant constexpr const
MY_CONST int fc_scale [[function_constant(0)]];
MY_CONST bool fc_offset [[function_constant(1)]];
MY_CONST bool fc_both = fc_offset && fc_scale > 1;

[[kernel]] void macro_constants(device float* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  x[i] = x[i] * float(fc_scale) + (fc_offset ? 1.0f : 0.0f) + (fc_both ? 10.0f : 0.0f);
}

// ------------------------------ an instance whose parameter types decide the template arguments,
// its [[host_name]] split over macro lines (conv.metal)
template <int N>
struct Strides {
  int s[N];
};

template <typename T, int N>
[[kernel]] void strided_sum(const device T* in [[buffer(0)]],
                            device T* out [[buffer(1)]],
                            const constant Strides<N>* st [[buffer(2)]],
                            uint i [[thread_position_in_grid]]) {
  T acc = T(0);
  for (int k = 0; k < N; ++k) acc += in[i + uint(st->s[k])];
  out[i] = acc;
}

#define instantiate_strided_sum(name, itype, n)          \
  template                                               \
      [[host_name("strided_sum_" #name "_" #n)]] [[kernel]] void \
      strided_sum(                                       \
          const device itype* in [[buffer(0)]],          \
          device itype* out [[buffer(1)]],               \
          const constant Strides<n>* st [[buffer(2)]],   \
          uint i [[thread_position_in_grid]]);

instantiate_strided_sum(float32, float, 2)
instantiate_strided_sum(int32, int, 3)

// ------------------------------ a threadgroup array with an initializer (layer_norm.metal)
[[kernel]] void tg_initializer(const device float* in [[buffer(0)]],
                               device float* out [[buffer(1)]],
                               uint lid [[thread_position_in_threadgroup]],
                               uint gid [[threadgroup_position_in_grid]],
                               uint n [[threads_per_threadgroup]]) {
  threadgroup float partial[32] = {0};
  partial[lid] = in[gid * n + lid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lid == 0) {
    float s = 0;
    for (uint k = 0; k < n; ++k) s += partial[k];
    out[gid] = s;
  }
}

// ------------------------------ partial specializations per address space (steel/utils/type_traits.h)
template <typename T>
struct element_of {};
template <typename T>
struct element_of<thread T*> {
  using type = remove_cv_t<T>;
};
template <typename T>
struct element_of<device T*> {
  using type = remove_cv_t<T>;
};
template <typename T>
struct element_of<constant T*> {
  using type = remove_cv_t<T>;
};
template <typename T>
struct element_of<threadgroup T*> {
  using type = remove_cv_t<T>;
};

template <typename Ptr>
void store_converted(Ptr dst, float v) {
  using U = typename element_of<Ptr>::type;
  *dst = static_cast<U>(v);
}

[[kernel]] void address_space_traits(const device float* in [[buffer(0)]],
                                     device int* out [[buffer(1)]],
                                     uint i [[thread_position_in_grid]]) {
  remove_addrspace_t<decltype(out)> p = out + i;
  store_converted(p, in[i] * 2.5f);
}

// ------------------------------ metal::array, uniform<T>, a short braced vector, _disjunction
// (binary_ops.h, gemv.h, random.metal, atomic.h)
struct DivMod {
  template <typename T>
  metal::array<T, 2> operator()(T x, T y) thread {
    return {x / y, x % y};
  };
};

template <typename T>
constexpr constant bool is_32bit_int = _disjunction<is_same<T, int>, is_same<T, uint>>::value;

[[kernel]] void library_types(const device int* a [[buffer(0)]],
                              const device int* b [[buffer(1)]],
                              device int* q [[buffer(2)]],
                              device int* r [[buffer(3)]],
                              device uint* v [[buffer(4)]],
                              constant int& n [[buffer(5)]],
                              uint i [[thread_position_in_grid]]) {
  const uniform<int> count = make_uniform(n);
  const uniform<int> per_thread = make_uniform(4);
  const uniform<int> threads = (count + per_thread - make_uniform(1)) / per_thread;
  if (int(i) >= threads) return;
  for (int k = int(i) * per_thread; k < min(int(count), int(i + 1) * per_thread); ++k) {
    metal::array<int, 2> qr = DivMod{}(a[k], b[k]);
    q[k] = qr[0];
    r[k] = qr[1] + (is_32bit_int<int> && !is_32bit_int<float> ? 0 : 1000);
  }
  uint4 ks = {i, i * 2u, i ^ 7u};
  v[i] = ks.x + ks.y * 100u + ks.z * 10000u + ks.w * 1000000u;
}

// ------------------------------ a coherence qualifier and a fence with a thread scope (fence.metal)
[[kernel]] void coherent_increment(volatile coherent(device) device uint* x [[buffer(0)]],
                                   uint i [[thread_position_in_grid]]) {
  x[i] = x[i] + 1u;
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device);
}

// ------------------------------ a kernel template's default argument closed by `>>` (sort.h), and
// simdgroup matrices multiplied with `*` (conv.metal)
template <typename T>
struct Greater {
  bool operator()(T x, T y) const { return x > y; }
};

template <typename T, typename Cmp = Greater<T>>
[[kernel]] void pick_by(const device T* a [[buffer(0)]],
                        const device T* b [[buffer(1)]],
                        device T* out [[buffer(2)]],
                        uint i [[thread_position_in_grid]]) {
  out[i] = Cmp()(a[i], b[i]) ? a[i] : b[i];
}

template [[host_name("pick_greater_float")]] [[kernel]] decltype(pick_by<float>) pick_by<float>;

[[kernel]] void matrix_product(const device float* a [[buffer(0)]],
                               const device float* b [[buffer(1)]],
                               device float* c [[buffer(2)]]) {
  simdgroup_float8x8 ma, mb;
  simdgroup_load(ma, a, 8);
  simdgroup_load(mb, b, 8);
  simdgroup_float8x8 mc = (ma * mb) * mb;
  simdgroup_store(mc, c, 8);
}

// ------------------------------ overloaded kernel templates (steel_gemm_masked.h)
template <typename T, typename U, int N>
[[kernel]] void overloaded(device T* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  x[i] = T(U(x[i]) * U(N));
}

template <typename T, int N, bool Negate = false>
[[kernel]] void overloaded(device T* x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  x[i] = Negate ? -x[i] - T(N) : x[i] + T(N);
}

template [[host_name("overloaded_scale")]] [[kernel]] decltype(overloaded<float, int, 3>) overloaded<float, int, 3>;
template [[host_name("overloaded_negate")]] [[kernel]] decltype(overloaded<float, 2, true>) overloaded<float, 2, true>;
