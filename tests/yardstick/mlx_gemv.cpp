// MLX's gemv.metal, every instance (issue 25's target): gemv_ and gemv_t_ (gemv_axbpy), their
// gathers (gather_mv), gemv_wide_ (gemv_wide) and gemv_wide_gather_ (gather_mm_wide), in every
// element type the file instantiates, dispatched with exactly the buffers, bytes, grid and
// function constants that mlx/backend/metal/matmul.cpp gives them (arguments it leaves unbound
// stay unbound), each against a reference computed here in double (complex double for
// complex64). Each instance runs at a shape for which MLX's host code picks it, where one exists.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "harness.h"

namespace metalsim::yardstick {
namespace {

using cd = std::complex<double>;

Row make_gemv_row(std::string instance, std::string shape) {
  Row r;
  r.file = "gemv.metal";
  r.instance = std::move(instance);
  r.shape = std::move(shape);
  return r;
}

enum class Elem { f32, f16, bf16, c64 };

const char* elem_name(Elem t) {
  switch (t) {
    case Elem::f32: return "float32";
    case Elem::f16: return "float16";
    case Elem::bf16: return "bfloat16";
    case Elem::c64: return "complex64";
  }
  return "";
}
size_t elem_bytes(Elem t) { return t == Elem::c64 ? 8 : t == Elem::f32 ? 4 : 2; }
// The unit roundoff of the element type (complex64: of each float component).
double unit_of(Elem t) { return t == Elem::f16 ? 0x1p-11 : t == Elem::bf16 ? 0x1p-8 : 0x1p-24; }

uint16_t bf16_bits(float f) {  // round to nearest even, as MLX's bfloat16_t converts
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  u += 0x7fffU + ((u >> 16) & 1U);
  return uint16_t(u >> 16);
}
float from_bf16(uint16_t h) {
  const uint32_t u = uint32_t(h) << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

// Elements of one type in bytes, as the kernel reads them.
struct Elems {
  Elem type;
  std::vector<uint8_t> bytes;
  Elems(Elem t, size_t n) : type(t), bytes(n * elem_bytes(t)) {}
  size_t size() const { return bytes.size() / elem_bytes(type); }
  void set(size_t i, cd v) {
    uint8_t* p = bytes.data() + i * elem_bytes(type);
    const float re = float(v.real()), im = float(v.imag());
    if (type == Elem::f32) {
      std::memcpy(p, &re, 4);
    } else if (type == Elem::f16) {
      const _Float16 h = _Float16(re);
      std::memcpy(p, &h, 2);
    } else if (type == Elem::bf16) {
      const uint16_t h = bf16_bits(re);
      std::memcpy(p, &h, 2);
    } else {
      std::memcpy(p, &re, 4);
      std::memcpy(p + 4, &im, 4);
    }
  }
  cd get(size_t i) const {
    const uint8_t* p = bytes.data() + i * elem_bytes(type);
    float re = 0, im = 0;
    if (type == Elem::f32 || type == Elem::c64) std::memcpy(&re, p, 4);
    if (type == Elem::c64) std::memcpy(&im, p + 4, 4);
    if (type == Elem::f16) {
      _Float16 h;
      std::memcpy(&h, p, 2);
      re = float(h);
    } else if (type == Elem::bf16) {
      uint16_t h = 0;
      std::memcpy(&h, p, 2);
      re = from_bf16(h);
    }
    return {re, im};
  }
};

// n values uniform in [-1, 1) (both parts for complex64), stored rounded to the type.
Elems random_elems(Runner& r, Elem t, size_t n) {
  std::uniform_real_distribution<double> d(-1, 1);
  Elems e(t, n);
  for (size_t i = 0; i < n; ++i) {
    const double re = d(r.rng());
    e.set(i, {re, t == Elem::c64 ? d(r.rng()) : 0.0});
  }
  return e;
}

NS::SharedPtr<MTL::Buffer> upload(Runner& r, const Elems& e) { return r.upload(e.bytes); }

// |a| |b| for the error bound: both parts' products for complex values.
double magnitude(cd a, cd b) {
  return (std::abs(a.real()) + std::abs(a.imag())) * (std::abs(b.real()) + std::abs(b.imag()));
}

// One output's reference: the dot product in double, its magnitude (the sum of the terms'
// magnitudes), then MLX's epilogue alpha * dot + beta * bias where the kernel has one.
struct Want {
  cd value;
  double magnitude;
};

// The largest error over `want`, relative to each output's magnitude, of the poisoned output
// `out` (NaN where unwritten counts as infinite).
double worst_error(const NS::SharedPtr<MTL::Buffer>& out, Elem t, const std::vector<Want>& want) {
  Elems got(t, want.size());
  std::memcpy(got.bytes.data(), out->contents(), got.bytes.size());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const cd g = got.get(i);
    const double d = std::max(std::abs(g.real() - want[i].value.real()),
                              std::abs(g.imag() - want[i].value.imag())) /
                     std::max(want[i].magnitude, 1e-30);
    if (std::isnan(d)) return double(INFINITY);
    worst = std::max(worst, d);
  }
  return worst;
}

// The tolerance of a dot product of k terms accumulated in float (float2 for complex64: a
// component of a complex product is two products and a sum) and stored in the type: the
// classical bound of the float sum, (k + 2) 2^-23 relative to the sum of magnitudes
// (docs/yardstick.md's rule for sums, with a rounding per product), plus the roundings of the
// epilogue: the store (1), or with axpby MLX's `T(alpha) * T(result) + T(beta) * bias` in the type
// (4); gemv_wide's epilogue runs in float and rounds once.
double dot_tolerance(Elem t, int k, int epilogue_roundings) {
  const int extra = t == Elem::c64 ? 3 : 2;
  return double(k + extra) * 0x1p-23 + epilogue_roundings * unit_of(t);
}

const float kAlpha = 0.75f, kBeta = -1.5f;  // axpby's, exact in every type

// A batch described as MLX's host gives it (batch_shape with strides per operand); locate(z)
// is elem_to_loc of batch element z.
struct Batch {
  std::vector<int> shape;
  int64_t count() const {
    int64_t n = 1;
    for (int s : shape) n *= s;
    return n;
  }
  int64_t locate(int64_t z, const std::vector<int64_t>& strides) const {
    int64_t loc = 0;
    for (int i = int(shape.size()) - 1; i >= 0; --i) {
      loc += (z % shape[size_t(i)]) * strides[size_t(i)];
      z /= shape[size_t(i)];
    }
    return loc;
  }
};

std::string block_name(int bm, int bn, int sm, int sn, int tm, int tn) {
  return "_bm" + std::to_string(bm) + "_bn" + std::to_string(bn) + "_sm" + std::to_string(sm) +
         "_sn" + std::to_string(sn) + "_tm" + std::to_string(tm) + "_tn" + std::to_string(tn);
}

// What gemv_axbpy and gather_mv both bind: the matrix, the vector, the output, the sizes and
// the batch's dimension count.
void bind_gemv_common(MTL::ComputeCommandEncoder* e, MTL::Buffer* mat, MTL::Buffer* vec,
                      MTL::Buffer* out, const int& k, const int& out_len, const int& ld,
                      const int& batch_ndim) {
  e->setBuffer(mat, 0, 0);
  e->setBuffer(vec, 0, 1);
  e->setBuffer(out, 0, 3);
  e->setBytes(&k, sizeof(k), 4);
  e->setBytes(&out_len, sizeof(out_len), 5);
  e->setBytes(&ld, sizeof(ld), 6);
  e->setBytes(&batch_ndim, sizeof(batch_ndim), 9);
}

// Output o of the matrix at m0 times the vector at v0, in double: mat is out_len x k (row o), or
// k x out_len transposed (column o).
Want gemv_reference(const Elems& mat, int64_t m0, const Elems& vec, int64_t v0, bool transpose,
                    int out_len, int k, int o) {
  Want w{0.0, 0.0};
  for (int j = 0; j < k; ++j) {
    const cd m = mat.get(size_t(m0 + (transpose ? int64_t(j) * out_len + o : int64_t(o) * k + j)));
    const cd v = vec.get(size_t(v0 + j));
    w.value += m * v;
    w.magnitude += magnitude(m, v);
  }
  return w;
}

// gemv_axbpy's choice of blocks for an output of out_len from k terms.
struct Blocks {
  int bm = 1, bn = 1, sm = 1, sn = 32, tm = 4, tn = 4;
  int per_group() const { return bm * sm * tm; }
  int per_group_t() const { return bn * sn * tn; }
};
Blocks choose_blocks(bool transpose, int out_len, int k, bool gather) {
  Blocks b;
  if (transpose) {
    b.sm = k >= 8192 && out_len >= 2048 ? 4 : 8;
    b.sn = k >= 8192 && out_len >= 2048 ? 8 : 4;
    b.bn = out_len >= 2048 ? 16 : out_len >= 512 ? 4 : 2;
    b.tn = out_len < 4 ? 1 : 4;
  } else {
    b.bm = out_len >= 4096 ? 8 : 4;
    if (!gather && k <= 64) b.bm = 1, b.sm = 8, b.sn = 4;
    else if (!gather && k >= 16 * out_len) b.bm = 1, b.bn = 8;
    b.tm = out_len < 4 ? 1 : 4;
  }
  return b;
}

// ------------------------------ gemv_ and gemv_t_ (gemv_axbpy)
// transpose: out[n] = vec[k] * mat[k x n] per batch element, else out[m] = mat[m x k] * vec[k].
// nc0: batch_shape {2} (contiguous batches); nc1: batch_shape {2, 2}, the matrix broadcast along
// the first dimension (stride 0), as MLX's collapsed batches leave a shape it cannot fold.
Row gemv_axbpy(Runner& r, Elem t, bool transpose, int out_len, int k, bool nc, bool axpby,
               const Blocks* forced = nullptr) {
  const Blocks b = forced != nullptr ? *forced : choose_blocks(transpose, out_len, k, false);
  const std::string name = std::string(transpose ? "gemv_t_" : "gemv_") + elem_name(t) +
                           block_name(b.bm, b.bn, b.sm, b.sn, b.tm, b.tn) + "_nc" +
                           std::to_string(int(nc)) + "_axpby" + std::to_string(int(axpby));
  const Batch batch{nc ? std::vector<int>{2, 2} : std::vector<int>{2}};
  const int64_t mat_size = int64_t(out_len) * k, bias_stride = 2;
  // Two matrices; vectors and biases one per batch element.
  const std::vector<int64_t> mat_strides =
      nc ? std::vector<int64_t>{0, mat_size} : std::vector<int64_t>{mat_size};
  const std::vector<int64_t> vec_strides =
      nc ? std::vector<int64_t>{2 * int64_t(k), k} : std::vector<int64_t>{k};
  const int64_t bias_size = int64_t(out_len) * bias_stride;
  const std::vector<int64_t> bias_strides =
      nc ? std::vector<int64_t>{2 * bias_size, bias_size} : std::vector<int64_t>{bias_size};
  const int64_t batches = batch.count();
  Row row = make_gemv_row(name, (transpose ? "1x" + std::to_string(k) + " times " +
                                                 std::to_string(k) + "x" + std::to_string(out_len)
                                           : std::to_string(out_len) + "x" + std::to_string(k) +
                                                 " times " + std::to_string(k)) +
                                    ", batch " + (nc ? "2x2" : "2") +
                                    (axpby ? ", 0.75 out - 1.5 bias" : ""));
  const Elems mat = random_elems(r, t, size_t(2 * mat_size));
  const Elems vec = random_elems(r, t, size_t(batches * k));
  const Elems bias = random_elems(r, t, size_t(batches * bias_size));
  auto bmat = upload(r, mat), bvec = upload(r, vec), bbias = upload(r, bias);
  auto bout = r.poisoned<uint8_t>(size_t(batches * out_len) * elem_bytes(t));
  const int ld = transpose ? out_len : k, batch_ndim = int(batch.shape.size());
  const int bias_ld = int(bias_stride);
  const int n_groups = (out_len + (transpose ? b.per_group_t() : b.per_group()) - 1) /
                       (transpose ? b.per_group_t() : b.per_group());
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        bind_gemv_common(e, bmat.get(), bvec.get(), bout.get(), k, out_len, ld, batch_ndim);
        e->setBytes(batch.shape.data(), batch.shape.size() * sizeof(int), 10);
        e->setBytes(vec_strides.data(), vec_strides.size() * sizeof(int64_t), 11);
        e->setBytes(mat_strides.data(), mat_strides.size() * sizeof(int64_t), 12);
        if (axpby) {  // gemv_axbpy binds these only with axpby; otherwise they stay unbound
          e->setBuffer(bbias.get(), 0, 2);
          e->setBytes(&kAlpha, sizeof(kAlpha), 7);
          e->setBytes(&kBeta, sizeof(kBeta), 8);
          e->setBytes(bias_strides.data(), bias_strides.size() * sizeof(int64_t), 13);
          e->setBytes(&bias_ld, sizeof(bias_ld), 14);
        }
      },
      MTL::Size(size_t(n_groups), 1, size_t(batches)), MTL::Size(32, size_t(b.bn), size_t(b.bm)),
      &row.note);
  std::vector<Want> want(size_t(batches * out_len));
  for (int64_t z = 0; z < batches; ++z) {
    const int64_t m0 = batch.locate(z, mat_strides), v0 = batch.locate(z, vec_strides);
    const int64_t b0 = batch.locate(z, bias_strides);
    for (int o = 0; o < out_len; ++o) {
      const Want dot = gemv_reference(mat, m0, vec, v0, transpose, out_len, k, o);
      cd sum = dot.value;
      double mag = dot.magnitude;
      if (axpby) {
        const cd c = bias.get(size_t(b0 + int64_t(o) * bias_stride));
        sum = double(kAlpha) * sum + double(kBeta) * c;
        mag = double(kAlpha) * mag +
              std::abs(double(kBeta)) * (std::abs(c.real()) + std::abs(c.imag()));
      }
      want[size_t(z * out_len + o)] = {sum, mag};
    }
  }
  row.max_error = worst_error(bout, t, want);
  row.tolerance = dot_tolerance(t, k, axpby ? 4 : 1);
  if (row.ran && row.note.empty()) row.note = "error relative to the sum of magnitudes";
  return row;
}

// ------------------------------ gemv_gather_ and gemv_t_gather_ (gather_mv)
// out[z] = mat[mat_indices[z]] times vec[vec_indices[z]] for 4 outputs from 3 matrices and 2
// vectors (1-D indices, as GatherMM's lhs and rhs indices); transpose: vec (1 x k) times mat
// (k x n), MLX's M == 1 route; else mat (m x k) times vec (k x 1), its N == 1 route.
Row gemv_gather(Runner& r, Elem t, bool transpose, int out_len, int k) {
  const Blocks b = choose_blocks(transpose, out_len, k, true);
  const std::string name = std::string(transpose ? "gemv_t_gather_" : "gemv_gather_") +
                           elem_name(t) + block_name(b.bm, b.bn, b.sm, b.sn, b.tm, b.tn);
  Row row = make_gemv_row(name, (transpose ? "1x" + std::to_string(k) + " times " +
                                                 std::to_string(k) + "x" + std::to_string(out_len)
                                           : std::to_string(out_len) + "x" + std::to_string(k) +
                                                 " times " + std::to_string(k)) +
                                    ", 4 gathered from 3 matrices and 2 vectors");
  const int n_mat = 3, n_vec = 2, n_out = 4;
  const std::vector<uint32_t> mat_indices = {2, 0, 1, 2}, vec_indices = {1, 0, 0, 1};
  const Elems mat = random_elems(r, t, size_t(n_mat) * size_t(out_len) * size_t(k));
  const Elems vec = random_elems(r, t, size_t(n_vec) * size_t(k));
  auto bmat = upload(r, mat), bvec = upload(r, vec);
  auto bmi = r.upload(mat_indices), bvi = r.upload(vec_indices);
  auto bout = r.poisoned<uint8_t>(size_t(n_out * out_len) * elem_bytes(t));
  // The arrays' shapes and strides as MLX passes them whole (set_vector_bytes of shape() and
  // strides()); the kernel reads the leading batch dimensions.
  const std::vector<int> out_shape =
      transpose ? std::vector<int>{n_out, 1, out_len} : std::vector<int>{n_out, out_len, 1};
  const std::vector<int> vec_shape =
      transpose ? std::vector<int>{n_vec, 1, k} : std::vector<int>{n_vec, k, 1};
  const std::vector<int64_t> vec_strides =
      transpose ? std::vector<int64_t>{k, k, 1} : std::vector<int64_t>{k, 1, 1};
  const std::vector<int> mat_shape =
      transpose ? std::vector<int>{n_mat, k, out_len} : std::vector<int>{n_mat, out_len, k};
  const std::vector<int64_t> mat_strides =
      transpose ? std::vector<int64_t>{int64_t(k) * out_len, out_len, 1}
                : std::vector<int64_t>{int64_t(k) * out_len, k, 1};
  const std::vector<int64_t> index_strides = {1, 1};  // vec_indices' then mat_indices'
  const int batch_ndim = 1, batch_ndim_vec = 1, batch_ndim_mat = 1;
  const int mat_ld = transpose ? out_len : k;
  const int per_group = transpose ? b.per_group_t() : b.per_group();
  const int n_groups = (out_len + per_group - 1) / per_group;
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        bind_gemv_common(e, bmat.get(), bvec.get(), bout.get(), k, out_len, mat_ld, batch_ndim);
        e->setBytes(out_shape.data(), out_shape.size() * sizeof(int), 10);
        e->setBytes(index_strides.data(), index_strides.size() * sizeof(int64_t), 11);
        e->setBytes(&batch_ndim_vec, sizeof(batch_ndim_vec), 12);
        e->setBytes(vec_shape.data(), vec_shape.size() * sizeof(int), 13);
        e->setBytes(vec_strides.data(), vec_strides.size() * sizeof(int64_t), 14);
        e->setBytes(&batch_ndim_mat, sizeof(batch_ndim_mat), 15);
        e->setBytes(mat_shape.data(), mat_shape.size() * sizeof(int), 16);
        e->setBytes(mat_strides.data(), mat_strides.size() * sizeof(int64_t), 17);
        e->setBuffer(bvi.get(), 0, 18);
        e->setBuffer(bmi.get(), 0, 19);
        // Nothing at 2, 7, 8 (bias, alpha, beta): gather_mv binds none.
      },
      MTL::Size(size_t(n_groups), 1, size_t(n_out)), MTL::Size(32, size_t(b.bn), size_t(b.bm)),
      &row.note);
  std::vector<Want> want(size_t(n_out * out_len));
  for (int z = 0; z < n_out; ++z) {
    const int64_t m0 = int64_t(mat_indices[size_t(z)]) * mat_strides[0];
    const int64_t v0 = int64_t(vec_indices[size_t(z)]) * vec_strides[0];
    for (int o = 0; o < out_len; ++o)
      want[size_t(z * out_len + o)] = gemv_reference(mat, m0, vec, v0, transpose, out_len, k, o);
  }
  row.max_error = worst_error(bout, t, want);
  row.tolerance = dot_tolerance(t, k, 1);
  if (row.ran && row.note.empty()) row.note = "error relative to the sum of magnitudes";
  return row;
}

// ------------------------------ gemv_wide_ (gemv_wide) and gemv_wide_gather_ (gather_mm_wide)
// out[M x N] = x[M x K] times w[N x K]^T, w streamed once per vecs_per_tg rows of x.
struct WidePlan {
  int vecs_per_tg, k_lanes, grid_x;
};
// gemv_wide_config's plan (on an M3 or later GPU, the generation that takes this route).
WidePlan wide_plan(int m, int n) {
  const int passes = (m + 4) / 5;
  const bool full_simd = passes == 1 || n <= 64;
  return {(m + passes - 1) / passes, full_simd ? 32 : 16, n >= 65536 ? 1 : passes};
}

Row gemv_wide(Runner& r, Elem t, int m, int n, int k, bool gather, bool has_batch, bool axpby,
              const WidePlan* forced = nullptr) {
  const WidePlan plan = forced != nullptr ? *forced : wide_plan(m, n);
  const std::string base = std::string(gather ? "gemv_wide_gather_" : "gemv_wide_") + elem_name(t) +
                           "_nv" + std::to_string(plan.vecs_per_tg) + "_kl" +
                           std::to_string(plan.k_lanes);
  // The function constants MLX specialises the pipeline with: has_batch (0) and do_axpby (1);
  // the gather gives do_axpby false only.
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  if (!gather) constants->setConstantValue(&has_batch, MTL::DataTypeBool, 0);
  constants->setConstantValue(&axpby, MTL::DataTypeBool, 1);
  Row row =
      make_gemv_row(base + (gather ? std::string(" (axpby false)")
                                   : " (has_batch " + std::string(has_batch ? "true" : "false") +
                                         ", axpby " + (axpby ? "true" : "false") + ")"),
                    std::to_string(m) + "x" + std::to_string(k) + " times (" + std::to_string(n) +
                        "x" + std::to_string(k) + ")^T" +
                        (gather      ? ", 4 gathered from 3 matrices and 2 inputs"
                         : has_batch ? ", batch 2x2"
                                     : ", batch 2") +
                        (axpby ? ", 0.75 out - 1.5 bias" : ""));
  const int64_t w_size = int64_t(n) * k, x_size = int64_t(m) * k;
  const int bias_fd = 2, bias_ld = 2 * n;  // a strided bias: (m, n) with strides (2n, 2)
  const int64_t bias_size = int64_t(m) * bias_ld;
  std::vector<int> batch_shape = has_batch ? std::vector<int>{2, 2} : std::vector<int>{2};
  std::vector<int64_t> w_strides =
      has_batch ? std::vector<int64_t>{0, w_size} : std::vector<int64_t>{w_size};
  std::vector<int64_t> x_strides =
      has_batch ? std::vector<int64_t>{2 * x_size, x_size} : std::vector<int64_t>{x_size};
  const std::vector<int64_t> bias_strides =
      has_batch ? std::vector<int64_t>{2 * bias_size, bias_size} : std::vector<int64_t>{bias_size};
  const std::vector<uint32_t> mat_indices = {2, 0, 1, 2}, vec_indices = {1, 0, 0, 1};
  const int n_out = gather ? 4 : int(Batch{batch_shape}.count());
  const int n_w = gather ? 3 : 2, n_x = gather ? 2 : n_out;
  const Elems w = random_elems(r, t, size_t(n_w * w_size));
  const Elems x = random_elems(r, t, size_t(n_x * x_size));
  const Elems bias = random_elems(r, t, size_t(n_out * bias_size));
  auto bw = upload(r, w), bx = upload(r, x), bbias = upload(r, bias);
  auto bmi = r.upload(mat_indices), bvi = r.upload(vec_indices);
  auto bout = r.poisoned<uint8_t>(size_t(n_out) * size_t(m) * size_t(n) * elem_bytes(t));
  const int mat_ld = k, vec_ld = k;
  // The gather's arrays as MLX passes them whole: out (4, m, n), a = x (2, m, k) row-contiguous,
  // b = w^T (3, k, n) a transposed view of w (strides n k, 1, k); indices 1-D.
  const int batch_ndim = gather ? 1 : int(batch_shape.size());
  const std::vector<int> out_shape = {n_out, m, n};
  const std::vector<int64_t> index_strides = {1, 1};
  const int batch_ndim_vec = 1, batch_ndim_mat = 1;
  const std::vector<int> a_shape = {n_x, m, k}, b_shape = {n_w, k, n};
  const std::vector<int64_t> a_strides = {x_size, k, 1}, b_strides = {w_size, 1, k};
  r.set_constants(constants.get());
  row.ran = r.dispatch_groups(
      row.instance.substr(0, row.instance.find(' ')),
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bw.get(), 0, 0);
        e->setBuffer(bx.get(), 0, 1);
        e->setBuffer(bout.get(), 0, 3);
        e->setBytes(&k, sizeof(k), 4);
        e->setBytes(&n, sizeof(n), 5);
        e->setBytes(&m, sizeof(m), 6);
        e->setBytes(&mat_ld, sizeof(mat_ld), 7);
        e->setBytes(&vec_ld, sizeof(vec_ld), 8);
        e->setBytes(&batch_ndim, sizeof(batch_ndim), 11);
        if (gather) {
          e->setBytes(out_shape.data(), out_shape.size() * sizeof(int), 12);
          e->setBytes(index_strides.data(), index_strides.size() * sizeof(int64_t), 13);
          e->setBytes(&batch_ndim_vec, sizeof(batch_ndim_vec), 14);
          e->setBytes(a_shape.data(), a_shape.size() * sizeof(int), 15);
          e->setBytes(a_strides.data(), a_strides.size() * sizeof(int64_t), 16);
          e->setBytes(&batch_ndim_mat, sizeof(batch_ndim_mat), 17);
          e->setBytes(b_shape.data(), b_shape.size() * sizeof(int), 18);
          e->setBytes(b_strides.data(), b_strides.size() * sizeof(int64_t), 19);
          e->setBuffer(bvi.get(), 0, 20);
          e->setBuffer(bmi.get(), 0, 21);
          return;
        }
        e->setBytes(batch_shape.data(), batch_shape.size() * sizeof(int), 12);
        e->setBytes(x_strides.data(), x_strides.size() * sizeof(int64_t), 13);
        e->setBytes(w_strides.data(), w_strides.size() * sizeof(int64_t), 14);
        if (axpby) {  // gemv_wide binds the bias and its parameters only with axpby
          e->setBuffer(bbias.get(), 0, 2);
          e->setBytes(&kAlpha, sizeof(kAlpha), 9);
          e->setBytes(&kBeta, sizeof(kBeta), 10);
          e->setBytes(bias_strides.data(), bias_strides.size() * sizeof(int64_t), 15);
          e->setBytes(&bias_ld, sizeof(bias_ld), 16);
          e->setBytes(&bias_fd, sizeof(bias_fd), 17);
        }
      },
      MTL::Size(size_t(plan.grid_x), size_t((n + 3) / 4), size_t(n_out)),
      MTL::Size(32, size_t(plan.k_lanes / 8), 1), &row.note);
  r.set_constants(nullptr);
  const Batch batch{batch_shape};
  std::vector<Want> want(size_t(n_out) * size_t(m) * size_t(n));
  for (int z = 0; z < n_out; ++z) {
    const int64_t w0 =
        gather ? int64_t(mat_indices[size_t(z)]) * w_size : batch.locate(z, w_strides);
    const int64_t x0 =
        gather ? int64_t(vec_indices[size_t(z)]) * x_size : batch.locate(z, x_strides);
    const int64_t b0 = gather ? 0 : batch.locate(z, bias_strides);
    for (int i = 0; i < m; ++i)
      for (int o = 0; o < n; ++o) {
        cd sum = 0;
        double mag = 0;
        for (int j = 0; j < k; ++j) {
          const cd a = x.get(size_t(x0 + int64_t(i) * k + j));
          const cd c = w.get(size_t(w0 + int64_t(o) * k + j));
          sum += a * c;
          mag += magnitude(a, c);
        }
        if (axpby) {
          const cd c = bias.get(size_t(b0 + int64_t(i) * bias_ld + int64_t(o) * bias_fd));
          sum = double(kAlpha) * sum + double(kBeta) * c;
          mag = double(kAlpha) * mag + std::abs(double(kBeta)) * std::abs(c.real());
        }
        want[(size_t(z) * size_t(m) + size_t(i)) * size_t(n) + size_t(o)] = {sum, mag};
      }
  }
  row.max_error = worst_error(bout, t, want);
  row.tolerance = dot_tolerance(t, k, axpby ? 2 : 1);  // the epilogue in float, one rounding
  if (row.ran && row.note.empty()) row.note = "error relative to the sum of magnitudes";
  return row;
}

}  // namespace

std::vector<Row> mlx_gemv_rows(Runner& r) {
  // Each row is also said on stderr as it completes: the whole file takes a while on a small
  // machine, and a run cut short still tells how far it got.
  struct Rows {
    std::vector<Row> all;
    void push_back(Row row) {
      std::fprintf(stderr, "gemv %zu: %s %s %.2g/%.2g %s\n", all.size() + 1, row.instance.c_str(),
                   row.passed() ? "ok" : "FAIL", row.max_error, row.tolerance, row.note.c_str());
      all.push_back(std::move(row));
    }
  } rows;
  // MLX clamps the last block of outputs to end at the output's end (gemv: out_row =
  // out_vec_size - TM), so two simdgroups store the same outputs with the same values: a
  // write-write race by MSL's memory model that the race check (METALSIM_CHECKS with race)
  // reports as race.device, harmless on a GPU.
  auto clamped = [](Row row) {
    row.known_bug =
        "the last block is clamped to end at the output's end (out_row = out_vec_size - TM): two "
        "writers store the same outputs with the same values, a race by MSL's memory model that "
        "a GPU forgives";
    row.known_check = "race.device";
    return row;
  };
  for (Elem t : {Elem::f32, Elem::f16, Elem::bf16, Elem::c64}) {
    // gemv_: (out, k) for which gemv_axbpy picks each of the 7 block shapes; bm4 tm1 (an output
    // under 4 with 64 < k < 16 out) has none: it runs at 3x100 as gather_mv would pick it.
    struct Shape {
      int out, k;
      Blocks forced;
      bool force;
    };
    const Blocks bm4_tm1{4, 1, 1, 32, 1, 4};
    const std::vector<Shape> gemv_shapes = {
        {37, 2000, {}, false},   {3, 500, {}, false},    {300, 50, {}, false},  {2, 40, {}, false},
        {3, 100, bm4_tm1, true}, {1001, 517, {}, false}, {4100, 300, {}, false}};
    for (const Shape& s : gemv_shapes)
      for (bool nc : {false, true})
        for (bool axpby : {false, true})
          rows.push_back(clamped(
              gemv_axbpy(r, t, false, s.out, s.k, nc, axpby, s.force ? &s.forced : nullptr)));
    // gemv_t_: the 5 block shapes.
    for (const auto& [out, k] : std::vector<std::pair<int, int>>{
             {3, 129}, {300, 301}, {700, 301}, {2100, 100}, {2048, 8192}})
      for (bool nc : {false, true})
        for (bool axpby : {false, true}) rows.push_back(gemv_axbpy(r, t, true, out, k, nc, axpby));
    // gemv_gather_ (3 block shapes) and gemv_t_gather_ (5).
    for (const auto& [out, k] :
         std::vector<std::pair<int, int>>{{3, 100}, {1001, 517}, {4100, 300}})
      rows.push_back(clamped(gemv_gather(r, t, false, out, k)));
    for (const auto& [out, k] : std::vector<std::pair<int, int>>{
             {3, 129}, {300, 301}, {700, 301}, {2100, 100}, {2048, 8192}})
      rows.push_back(gemv_gather(r, t, true, out, k));
  }
  // gemv_wide_ and gemv_wide_gather_ (float16, bfloat16): m rows of x for which gemv_wide_config
  // plans each (vecs_per_tg, k_lanes); (2, 16) has none (a plan of two passes has at least 3 rows
  // a pass): it runs with m = 4 and the grid of two passes. k = 1088: 272 float4 chunks, past the
  // unrolled main loop's k_lanes * 8 (256 or 128) and into its tail.
  struct WideShape {
    int m, n;
    WidePlan forced;
    bool force;
  };
  const std::vector<WideShape> wide_shapes = {
      {2, 130, {}, false},        {3, 130, {}, false}, {4, 130, {}, false}, {5, 130, {}, false},
      {4, 300, {2, 16, 2}, true}, {6, 300, {}, false}, {8, 300, {}, false}, {10, 300, {}, false}};
  constexpr int kWideK = 1088;
  for (Elem t : {Elem::f16, Elem::bf16})
    for (const WideShape& s : wide_shapes)
      for (bool has_batch : {false, true})
        for (bool axpby : {false, true})
          rows.push_back(gemv_wide(r, t, s.m, s.n, kWideK, false, has_batch, axpby,
                                   s.force ? &s.forced : nullptr));
  // gemv_wide_gather reads `bias` (buffer 2, no function_constant attribute of its own) only
  // under `if (gemv_wide_do_axpby)`, which MLX specialises false, and binds nothing there.
  // Metal's specialisation folds the branch away and the argument is inactive; a library built
  // with the program is not specialised (its constants are read per dispatch), so there the
  // unbound bias stays active. The run-time compiler specialises: these instances come from
  // gemv.metal compiled at run time, each with MLX's constants compiled in (last: each is a
  // compile of its own).
  std::string error;
  auto specialising = r.compile_file(
      std::string(METALSIM_YARDSTICK_MLX_ROOT) + "/mlx/backend/metal/kernels/gemv.metal",
      {METALSIM_YARDSTICK_MLX_ROOT}, &error);
  auto linked = r.use_library(specialising);
  for (Elem t : {Elem::f16, Elem::bf16})
    for (const WideShape& s : wide_shapes) {
      Row row = specialising ? gemv_wide(r, t, s.m, s.n, kWideK, true, false, false,
                                         s.force ? &s.forced : nullptr)
                             : make_gemv_row("gemv_wide_gather_" + std::string(elem_name(t)), "");
      if (!specialising) row.note = "gemv.metal does not compile at run time: " + error;
      row.shape += ", compiled at run time (specialised)";
      rows.push_back(row);
    }
  r.use_library(linked);
  return rows.all;
}

}  // namespace metalsim::yardstick
