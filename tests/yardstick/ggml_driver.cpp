// ggml's Metal kernels (ggml-org/ggml, src/ggml-metal/ggml-metal.metal) run through metalsim the
// way ggml's host code (src/ggml-metal/ggml-metal-ops.cpp, ggml-metal-device.cpp) dispatches them:
// its argument structs (ggml_metal_kargs_*, from the checkout's ggml-metal-impl.h), its function
// constants, its grid and threadgroup sizes. References are written here in double; the block
// formats are decoded from their published layout (ggml-common.h's comments and field list), not
// from ggml's code. Inputs from a fixed seed; outputs start poisoned (NaN, or -1 for indices).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "harness.h"

// The argument structs ggml's host code fills, from the user's checkout (C, plain types).
#include "ggml-metal-impl.h"

namespace metalsim::yardstick {
namespace {

constexpr const char* kFile = "ggml-metal.metal";
constexpr double kUnit = 0x1p-24;  // float32 unit roundoff

Row make_row(std::string instance, std::string shape) {
  Row r;
  r.file = kFile;
  r.instance = std::move(instance);
  r.shape = std::move(shape);
  return r;
}

double half_bits_to_double(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return double(h);
}

uint16_t double_to_half_bits(double v) {
  const _Float16 h = _Float16(v);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

// A set of function constants, as ggml_metal_cv_set_* builds one per pipeline.
struct Constants {
  NS::SharedPtr<MTL::FunctionConstantValues> values =
      NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  void set_short(int16_t v, NS::UInteger index) {
    values->setConstantValue(&v, MTL::DataTypeShort, index);
  }
  void set_int(int32_t v, NS::UInteger index) {
    values->setConstantValue(&v, MTL::DataTypeInt, index);
  }
  void set_bool(bool v, NS::UInteger index) {
    values->setConstantValue(&v, MTL::DataTypeBool, index);
  }
};

// The largest threadgroup the pipeline allows (ggml_metal_pipeline_max_theads_per_threadgroup).
int max_threads(Runner& r, const std::string& name) {
  std::string error;
  auto pso = r.pipeline(name, &error);
  return pso ? int(pso->maxTotalThreadsPerThreadgroup()) : 1024;
}

// ------------------------------ block formats (ggml-common.h: the layout of each block)
// Q8_0: 32 values; a half scale d, then 32 signed bytes q; value = d * q.
constexpr size_t kQ8_0Bytes = 2 + 32;
// Q4_K: 256 values in 8 sub-blocks of 32; half d, half dmin, 12 bytes of 6-bit scales and mins,
// 128 bytes of 4-bit quants; value = d * scale * q - dmin * min.
constexpr size_t kQ4_KBytes = 2 + 2 + 12 + 128;
// Q6_K: 256 values in 16 sub-blocks of 16; 128 bytes of low 4 bits, 64 bytes of high 2 bits,
// 16 signed 8-bit scales, then a half d; value = d * scale * (q - 32), q 6 bits.
constexpr size_t kQ6_KBytes = 128 + 64 + 16 + 2;

uint16_t read_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

void decode_q8_0(const uint8_t* b, double* out) {
  const double d = half_bits_to_double(read_u16(b));
  for (int i = 0; i < 32; ++i) out[i] = d * double(int8_t(b[2 + i]));
}

// Q4_K's sub-block j (0..7) scale and min, 6 bits each in 12 bytes: sub-blocks 0..3 keep theirs
// in the low 6 bits of bytes j (scale) and j + 4 (min); sub-blocks 4..7 keep their low 4 bits in
// the nibbles of byte j + 4 and their top 2 bits in the top 2 bits of bytes j - 4 (scale) and j
// (min).
void q4_K_scale_min(const uint8_t* s, int j, int* scale, int* min) {
  if (j < 4) {
    *scale = s[j] & 63;
    *min = s[j + 4] & 63;
  } else {
    *scale = (s[j + 4] & 0xf) | ((s[j - 4] >> 6) << 4);
    *min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

// `mins` (when given) receives each value's dmin * min term alone, for the error scale.
void decode_q4_K(const uint8_t* b, double* out, double* mins = nullptr) {
  const double d = half_bits_to_double(read_u16(b));
  const double dmin = half_bits_to_double(read_u16(b + 2));
  const uint8_t* scales = b + 4;
  const uint8_t* qs = b + 16;
  // Each 32 bytes of quants hold two sub-blocks: the low nibbles the first, the high the second.
  for (int pair = 0; pair < 4; ++pair) {
    for (int half = 0; half < 2; ++half) {
      int sc, m;
      q4_K_scale_min(scales, 2 * pair + half, &sc, &m);
      for (int l = 0; l < 32; ++l) {
        const int q = half ? qs[32 * pair + l] >> 4 : qs[32 * pair + l] & 0xf;
        const size_t i = 64 * pair + 32 * half + l;
        out[i] = d * sc * q - dmin * m;
        if (mins) mins[i] = dmin * m;
      }
    }
  }
}

void decode_q6_K(const uint8_t* b, double* out) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const int8_t* scales = reinterpret_cast<const int8_t*>(b + 192);
  const double d = half_bits_to_double(read_u16(b + 208));
  // Each half of 128 values uses 64 bytes of ql, 32 of qh and 8 scales. Within a half, value
  // 32 * k + l (k = 0..3) takes the low (k = 0, 1) or high (k = 2, 3) nibble of ql[l + 32 * (k %
  // 2)] and bits 2k, 2k + 1 of qh[l]; its scale is the one of its 16 values.
  for (int h = 0; h < 2; ++h) {
    for (int k = 0; k < 4; ++k) {
      for (int l = 0; l < 32; ++l) {
        const uint8_t low = ql[64 * h + l + 32 * (k % 2)];
        const int lo4 = k < 2 ? low & 0xf : low >> 4;
        const int hi2 = (qh[32 * h + l] >> (2 * k)) & 3;
        const int q = (lo4 | (hi2 << 4)) - 32;
        const int v = 32 * k + l;
        out[128 * h + v] = d * scales[8 * h + v / 16] * q;
      }
    }
  }
}

// Random blocks: random quant bytes, a positive scale of moderate size (half precision, exact).
std::vector<uint8_t> random_blocks(std::mt19937& rng, size_t blocks, size_t bytes,
                                   const std::vector<size_t>& half_offsets) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<double> scale(0.002, 0.02);
  std::vector<uint8_t> v(blocks * bytes);
  for (uint8_t& x : v) x = uint8_t(byte(rng));
  for (size_t b = 0; b < blocks; ++b)
    for (size_t off : half_offsets) {
      const uint16_t h = double_to_half_bits(scale(rng));
      std::memcpy(&v[b * bytes + off], &h, 2);
    }
  return v;
}

// ------------------------------ get_rows (ggml-metal-ops.cpp: ggml_metal_op_get_rows)
// src0 [ne00, ne01, ne02] rows of `row_bytes`; indices [ne10, ne11] int32; dst float [ne00, ne10,
// ne11]. The index rows i11 read src0 plane i11.
struct GetRowsShape {
  int ne00, ne01, ne02, ne10;
};

Row get_rows(Runner& r, const std::string& type, const GetRowsShape& s,
             const std::vector<uint8_t>& src, size_t row_bytes, bool quantized,
             const std::vector<double>& values) {
  const std::string name = "kernel_get_rows_" + type;
  Row row = make_row(name, std::to_string(s.ne10) + "x" + std::to_string(s.ne02) + " rows of " +
                               std::to_string(s.ne00) + " from " + std::to_string(s.ne01) + "x" +
                               std::to_string(s.ne02));
  std::uniform_int_distribution<int32_t> pick(0, s.ne01 - 1);
  std::vector<int32_t> idx(size_t(s.ne10) * s.ne02);
  for (int32_t& i : idx) i = pick(r.rng());
  ggml_metal_kargs_get_rows a{};
  a.ne00t = quantized ? s.ne00 / 16 : s.ne00;
  a.ne00 = s.ne00;
  a.nb01 = row_bytes;
  a.nb02 = row_bytes * s.ne01;
  a.nb03 = a.nb02 * s.ne02;
  a.ne10 = s.ne10;
  a.nb10 = 4;
  a.nb11 = 4 * size_t(s.ne10);
  a.nb12 = a.nb11 * s.ne02;
  a.nb1 = 4 * size_t(s.ne00);
  a.nb2 = a.nb1 * s.ne10;
  a.nb3 = a.nb2 * s.ne02;
  const int nth = std::min(a.ne00t, max_threads(r, name));
  const int nw0 = (a.ne00t + nth - 1) / nth;
  const size_t n_out = size_t(s.ne00) * s.ne10 * s.ne02;
  auto b0 = r.upload(src), b1 = r.upload(idx);
  auto bout = r.poisoned<float>(n_out);
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBytes(&a, sizeof(a), 0);
        e->setBuffer(b0.get(), 0, 1);
        e->setBuffer(b1.get(), 0, 2);
        e->setBuffer(bout.get(), 0, 3);
      },
      MTL::Size(size_t(nw0) * s.ne10, s.ne02, 1), MTL::Size(nth, 1, 1), &row.note);
  std::vector<double> want(n_out);
  for (int i11 = 0; i11 < s.ne02; ++i11)
    for (int i10 = 0; i10 < s.ne10; ++i10) {
      const size_t src_row = size_t(i11) * s.ne01 + idx[size_t(i11) * s.ne10 + i10];
      for (int i0 = 0; i0 < s.ne00; ++i0)
        want[(size_t(i11) * s.ne10 + i10) * s.ne00 + i0] = values[src_row * s.ne00 + i0];
    }
  // A copy: exact (the quantized values are products of a half and a small integer, exact in
  // float32).
  row.max_error = relative_error(widened(Runner::read<float>(bout, n_out)), want);
  row.tolerance = 0;
  return row;
}

Row get_rows_f32(Runner& r) {
  const GetRowsShape s{1100, 23, 2, 9};  // ne00 above the 1024-thread limit: two groups per row
  const auto x = random_vector<float>(r.rng(), size_t(s.ne00) * s.ne01 * s.ne02, -5, 5);
  std::vector<uint8_t> bytes(x.size() * 4);
  std::memcpy(bytes.data(), x.data(), bytes.size());
  return get_rows(r, "f32", s, bytes, 4 * size_t(s.ne00), false, widened(x));
}

Row get_rows_q8_0(Runner& r) {
  const GetRowsShape s{32 * 7, 13, 2, 5};
  const size_t blocks = size_t(s.ne00 / 32) * s.ne01 * s.ne02;
  const auto bytes = random_blocks(r.rng(), blocks, kQ8_0Bytes, {0});
  std::vector<double> values(blocks * 32);
  for (size_t b = 0; b < blocks; ++b) decode_q8_0(&bytes[b * kQ8_0Bytes], &values[b * 32]);
  return get_rows(r, "q8_0", s, bytes, kQ8_0Bytes * (s.ne00 / 32), true, values);
}

// ------------------------------ cpy (ggml-metal-ops.cpp: ggml_metal_op_cpy)
// A contiguous [ne00, ne01, ne02] tensor of T0 into one of T1, the same shape.
template <class T0, class T1>
Row cpy(Runner& r, const std::string& name, int ne00, int ne01, int ne02) {
  Row row = make_row(
      name, std::to_string(ne00) + "x" + std::to_string(ne01) + "x" + std::to_string(ne02));
  const size_t n = size_t(ne00) * ne01 * ne02;
  const auto x = random_vector<T0>(r.rng(), n, -4, 4);
  // The host's choice of threadgroup: up to 256 threads, several short rows per group.
  const int64_t nk0 = ne00;
  int nth = int(std::min<int64_t>(nk0 * ne01, 256));
  int nrptg = 1;
  if (nth > nk0) {
    nrptg = int((nth + nk0 - 1) / nk0);
    nth = int(nk0);
    if (nrptg * nth > 256) --nrptg;
  }
  nth = int(std::min<int64_t>(nth, nk0));
  ggml_metal_kargs_cpy a{};
  a.nk0 = nk0;
  a.ne00 = a.ne0 = ne00;
  a.ne01 = a.ne1 = ne01;
  a.ne02 = a.ne2 = ne02;
  a.ne03 = a.ne3 = 1;
  a.nb00 = sizeof(T0);
  a.nb01 = a.nb00 * ne00;
  a.nb02 = a.nb01 * ne01;
  a.nb03 = a.nb02 * ne02;
  a.nb0 = sizeof(T1);
  a.nb1 = a.nb0 * ne00;
  a.nb2 = a.nb1 * ne01;
  a.nb3 = a.nb2 * ne02;
  const int nw0 = nrptg == 1 ? int((nk0 + nth - 1) / nth) : 1;
  auto bx = r.upload(x);
  auto bout = r.poisoned<T1>(n);
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBytes(&a, sizeof(a), 0);
        e->setBuffer(bx.get(), 0, 1);
        e->setBuffer(bout.get(), 0, 2);
      },
      MTL::Size(size_t(nw0) * (ne01 + nrptg - 1) / nrptg, ne02, 1), MTL::Size(nth, nrptg, 1),
      &row.note);
  row.shape += ", " + std::to_string(nth) + "x" + std::to_string(nrptg) + " threads a group";
  row.max_error = relative_error(widened(Runner::read<T1>(bout, n)), widened(x));
  // To half: one rounding, 2^-11 of the value (absolute below 1, where halves may be subnormal);
  // to float: exact.
  row.tolerance = sizeof(T1) == 2 ? 0x1p-11 : 0;
  return row;
}

// ------------------------------ rope, normal mode (ggml_metal_op_rope, rope pipeline)
// x [ne00 = head size, ne01 heads, ne02 tokens]; the first n_dims values of each head rotate in
// adjacent pairs by pos[token] * base^(-i / n_dims), the rest are copied.
struct RopeShape {
  int ne00, ne01, ne02, n_dims;
};

Row rope_norm(Runner& r, const RopeShape& s) {
  const std::string name = "kernel_rope_norm_f32";
  Row row =
      make_row(name, std::to_string(s.ne02) + " tokens x " + std::to_string(s.ne01) + " heads of " +
                         std::to_string(s.ne00) + ", " + std::to_string(s.n_dims) + " rotated");
  const size_t n = size_t(s.ne00) * s.ne01 * s.ne02;
  const auto x = random_vector<float>(r.rng(), n, -2, 2);
  std::uniform_int_distribution<int32_t> position(0, 999);
  std::vector<int32_t> pos(s.ne02);
  for (int32_t& p : pos) p = position(r.rng());
  ggml_metal_kargs_rope a{};
  a.ne00 = a.ne0 = s.ne00;
  a.ne01 = a.ne1 = s.ne01;
  a.ne02 = a.ne2 = s.ne02;
  a.ne03 = a.ne3 = 1;
  a.nb00 = a.nb0 = 4;
  a.nb01 = a.nb1 = 4 * size_t(s.ne00);
  a.nb02 = a.nb2 = a.nb01 * s.ne01;
  a.nb03 = a.nb3 = a.nb02 * s.ne02;
  a.n_dims = s.n_dims;
  a.n_ctx_orig = 4096;
  a.freq_base = 10000.0f;
  a.freq_scale = 1.0f;
  a.ext_factor = 0.0f;  // no YaRN: theta and magnitude unscaled
  a.attn_factor = 1.0f;
  a.beta_fast = 32.0f;
  a.beta_slow = 1.0f;
  Constants c;  // ggml_metal_library_get_pipeline_rope: not imrope, not backward
  c.set_bool(false, FC_ROPE + 0);
  c.set_bool(false, FC_ROPE + 1);
  r.set_constants(c.values.get());
  auto bx = r.upload(x), bp = r.upload(pos);
  auto bout = r.poisoned<float>(n);
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBytes(&a, sizeof(a), 0);
        e->setBuffer(bx.get(), 0, 1);
        e->setBuffer(bp.get(), 0, 2);
        e->setBuffer(bx.get(), 0, 3);  // no frequency factors: ggml binds src0 there
        e->setBuffer(bout.get(), 0, 4);
      },
      MTL::Size(s.ne01, s.ne02, 1), MTL::Size(std::min(1024, s.ne00), 1, 1), &row.note);
  r.set_constants(nullptr);
  const auto got = Runner::read<float>(bout, n);
  double max_theta = 0;
  for (int p : pos) max_theta = std::max(max_theta, double(p));
  for (size_t base = 0; base < n; base += 2) {
    const size_t t = base / (size_t(s.ne00) * s.ne01);
    const int i0 = int(base % s.ne00);
    const double x0 = x[base], x1 = x[base + 1];
    double y0 = x0, y1 = x1;
    if (i0 < s.n_dims) {
      const double theta = pos[t] * std::pow(10000.0, -double(i0) / s.n_dims);
      y0 = x0 * std::cos(theta) - x1 * std::sin(theta);
      y1 = x0 * std::sin(theta) + x1 * std::cos(theta);
    }
    // The error scales with the pair's magnitude (a rotation mixes both).
    const double scale = std::abs(x0) + std::abs(x1) + 1e-30;
    for (double e : {std::abs(double(got[base]) - y0), std::abs(double(got[base + 1]) - y1)})
      row.max_error = std::isnan(e) ? double(INFINITY) : std::max(row.max_error, e / scale);
  }
  // The float angle pos * pow(base, -i / n_dims) is within 32 units of 2^-24 of the exact one
  // (the exponent's two roundings times |ln base| < 9.3, pow's own error, the product), so the
  // output moves by that angle error times the pair's magnitude, plus a few roundings of the
  // cos/sin and the rotation.
  row.tolerance = max_theta * 32 * kUnit + 8 * kUnit;
  return row;
}

// ------------------------------ mul_mv, one src1 column (ggml_metal_op_mul_mat's mat-vec branch)
// src0 [ne00, ne01] in a block format, src1 [ne00] float, dst [ne01] float.
struct BlockFormat {
  const char* type;
  size_t block_values, block_bytes;
  std::vector<size_t> half_offsets;  // where the block's half scales are
  // The block's values, and each value's magnitude as the kernel's sum sees it.
  void (*decode)(const uint8_t* block, double* values, double* magnitudes);
  int nsg, nr0;     // ggml_metal_library_get_pipeline_mul_mv's choice for the type
  size_t smem;      // its threadgroup memory
  bool row_groups;  // the grid counts groups of nr0 rows (Q8_0) instead of nr0 * nsg
};

void magnitudes_of(const double* v, double* m, size_t n) {
  for (size_t i = 0; i < n; ++i) m[i] = std::abs(v[i]);
}

void decode_q8_0_m(const uint8_t* b, double* v, double* m) {
  decode_q8_0(b, v);
  magnitudes_of(v, m, 32);
}
void decode_q6_K_m(const uint8_t* b, double* v, double* m) {
  decode_q6_K(b, v);
  magnitudes_of(v, m, 256);
}
// Q4_K's value is a difference, d * scale * q - dmin * min: the kernel sums both terms apart, so
// the rounding scale is the sum of their magnitudes.
void decode_q4_K_m(const uint8_t* b, double* v, double* m) {
  double mins[256];
  decode_q4_K(b, v, mins);
  for (int i = 0; i < 256; ++i) m[i] = std::abs(v[i] + mins[i]) + std::abs(mins[i]);
}

ggml_metal_kargs_mul_mv mul_mv_args(const BlockFormat& f, int ne00, int ne01) {
  ggml_metal_kargs_mul_mv a{};
  a.ne00 = a.ne10 = ne00;
  a.ne01 = a.ne0 = ne01;
  a.ne02 = a.ne11 = a.ne12 = a.ne1 = 1;
  a.nb00 = f.block_bytes;
  a.nb01 = f.block_bytes * (ne00 / f.block_values);
  a.nb02 = a.nb03 = a.nb01 * ne01;
  a.nb10 = 4;
  a.nb11 = a.nb12 = a.nb13 = 4 * size_t(ne00);
  a.nr0 = f.nr0;
  a.r2 = a.r3 = 1;
  return a;
}

Row mul_mv(Runner& r, const BlockFormat& f, int ne00, int ne01) {
  const std::string name = std::string("kernel_mul_mv_") + f.type + "_f32";
  Row row = make_row(
      name, std::to_string(ne01) + "x" + std::to_string(ne00) + " times " + std::to_string(ne00));
  const size_t blocks = size_t(ne00 / f.block_values) * ne01;
  const auto w = random_blocks(r.rng(), blocks, f.block_bytes, f.half_offsets);
  const auto y = random_vector<float>(r.rng(), ne00, -1, 1);
  std::vector<double> wv(blocks * f.block_values), wm(wv.size());
  for (size_t b = 0; b < blocks; ++b)
    f.decode(&w[b * f.block_bytes], &wv[b * f.block_values], &wm[b * f.block_values]);
  const auto a = mul_mv_args(f, ne00, ne01);
  Constants c;  // ggml_metal_library_get_pipeline_mul_mv: nsg, ne12, r2, r3
  c.set_short(int16_t(f.nsg), FC_MUL_MV + 0);
  c.set_short(1, FC_MUL_MV + 2);
  c.set_short(1, FC_MUL_MV + 3);
  c.set_short(1, FC_MUL_MV + 4);
  r.set_constants(c.values.get());
  auto bw = r.upload(w), by = r.upload(y);
  auto bout = r.poisoned<float>(ne01);
  const int rows_per_group = f.row_groups ? f.nr0 : f.nr0 * f.nsg;
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBytes(&a, sizeof(a), 0);
        e->setBuffer(bw.get(), 0, 1);
        e->setBuffer(by.get(), 0, 2);
        e->setBuffer(bout.get(), 0, 3);
      },
      MTL::Size((ne01 + rows_per_group - 1) / rows_per_group, 1, 1), MTL::Size(32, f.nsg, 1),
      &row.note, f.smem);
  r.set_constants(nullptr);
  const auto got = Runner::read<float>(bout, ne01);
  for (int i = 0; i < ne01; ++i) {
    double want = 0, mag = 0;
    for (int k = 0; k < ne00; ++k) {
      want += wv[size_t(i) * ne00 + k] * double(y[k]);
      mag += wm[size_t(i) * ne00 + k] * std::abs(double(y[k]));
    }
    const double e = std::abs(double(got[i]) - want) / std::max(mag, 1e-30);
    row.max_error = std::isnan(e) ? double(INFINITY) : std::max(row.max_error, e);
  }
  row.note = row.ran ? "error relative to the sum of the terms' magnitudes" : row.note;
  // The mat-vec kernels read all nr0 rows of a simdgroup's share before checking them against
  // ne01 (only the writes are checked): past the last row, they read beyond the tensor. ggml's
  // tensors lie inside larger Metal buffers, here the tensor is the whole buffer.
  row.known_check = "bounds.device";
  if (!row.ran && ne01 % rows_per_group != 0)
    row.known_bug = "the last threadgroup reads src0 rows past ne01 (" + std::to_string(ne01) +
                    " rows, " + std::to_string(rows_per_group) + " per group)";
  // A float32 sum of ne00 products (n roundings), each product of a dequantised value made in a
  // few roundings (scale times scale times quant, times y): (ne00 + 8) units.
  row.tolerance = double(ne00 + 8) * kUnit;
  return row;
}

const BlockFormat kQ8_0{"q8_0",        32,        kQ8_0Bytes, {0},
                        decode_q8_0_m, N_SG_Q8_0, N_R0_Q8_0,  32 * sizeof(float) * N_R0_Q8_0,
                        true};
const BlockFormat kQ4_K{"q4_K",    256,       kQ4_KBytes, {0, 2}, decode_q4_K_m,
                        N_SG_Q4_K, N_R0_Q4_K, 0,          false};
const BlockFormat kQ6_K{"q6_K",    256,       kQ6_KBytes, {208}, decode_q6_K_m,
                        N_SG_Q6_K, N_R0_Q6_K, 0,          false};

// ------------------------------ argsort, ascending (ggml_metal_op_argsort)
// Rows of at most the pipeline's thread limit: one bitonic-sort dispatch, no merge pass.
Row argsort(Runner& r, int ne00, int ne01) {
  const std::string name = "kernel_argsort_f32_i32_asc";
  Row row = make_row(name, std::to_string(ne01) + " rows of " + std::to_string(ne00));
  const size_t n = size_t(ne00) * ne01;
  const auto x = random_vector<float>(r.rng(), n, -100, 100);
  int nth = 1;
  while (nth < ne00 && 2 * nth <= max_threads(r, name)) nth *= 2;
  ggml_metal_kargs_argsort a{};
  a.ne00 = a.ne0 = ne00;
  a.ne01 = a.ne1 = ne01;
  a.ne02 = a.ne03 = a.ne2 = a.ne3 = 1;
  a.nb00 = 4;
  a.nb01 = 4 * size_t(ne00);
  a.nb02 = a.nb03 = a.nb01 * ne01;
  a.top_k = nth;
  auto bx = r.upload(x);
  auto bout = r.poisoned<int32_t>(2 * n);  // ggml allocates twice: the merge passes' scratch
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBytes(&a, sizeof(a), 0);
        e->setBuffer(bx.get(), 0, 1);
        e->setBuffer(bout.get(), 0, 2);
      },
      MTL::Size(ne01, 1, 1), MTL::Size(nth, 1, 1), &row.note,
      (nth * sizeof(int32_t) + 15) / 16 * 16);
  const auto got = Runner::read<int32_t>(bout, n);
  size_t wrong = 0;
  for (int i = 0; i < ne01; ++i) {
    const float* rowx = &x[size_t(i) * ne00];
    std::vector<int32_t> want(ne00);
    std::iota(want.begin(), want.end(), 0);
    // The values are distinct (checked), so the order is unique and stability does not matter.
    std::stable_sort(want.begin(), want.end(),
                     [&](int32_t p, int32_t q) { return rowx[p] < rowx[q]; });
    for (int j = 0; j < ne00; ++j) wrong += got[size_t(i) * ne00 + j] != want[j];
  }
  std::vector<float> sorted(x);
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    row.note = "ties in the input";
  row.max_error = double(wrong);
  row.tolerance = 0;
  if (row.ran && row.note.empty()) row.note = "error = indices that differ";
  return row;
}

// ------------------------------ flash_attn_ext_vec, f16 K and V (ggml_metal_op_flash_attn_ext,
// the vec branch: fewer than 20 queries): 32 workgroups each take a share of the KV cache and write
// partial results and their softmax sums and maxima to a scratch buffer; kernel_flash_attn_ext_vec_
// reduce combines them. With or without a mask (f16, one row of KV values per query, broadcast
// over heads as llama.cpp's causal mask is); no sinks, ALiBi or softcap; KV length a multiple of
// 32 (no padding pass).
struct AttnShape {
  int d;         // head size, K and V
  int queries;   // ne01
  int heads;     // ne02
  int kv_heads;  // ne12: grouped-query attention
  int kv;        // ne11
  bool masked;   // src3
};

struct AttnData {
  std::vector<float> q;
  std::vector<_Float16> k, v;
  std::vector<_Float16> mask;  // [queries][kv], empty without a mask
};

// Query i sees the keys up to kv - 1 - 23 i (-inf past them, as a causal mask; query 2 of 96
// keys leaves a whole block of 32 masked, which the kernel skips) with random values in [-1, 0].
std::vector<_Float16> causal_mask(std::mt19937& rng, const AttnShape& s) {
  std::uniform_real_distribution<float> bias(-1.0f, 0.0f);
  std::vector<_Float16> m(size_t(s.queries) * s.kv);
  for (int qi = 0; qi < s.queries; ++qi)
    for (int j = 0; j < s.kv; ++j)
      m[size_t(qi) * s.kv + j] =
          j <= s.kv - 1 - 23 * qi ? _Float16(bias(rng)) : _Float16(-INFINITY);
  return m;
}

ggml_metal_kargs_flash_attn_ext_vec attn_args(const AttnShape& s) {
  ggml_metal_kargs_flash_attn_ext_vec a{};
  a.ne01 = s.queries;
  a.ne02 = s.heads;
  a.ne03 = 1;
  a.nb01 = 4 * size_t(s.d);
  a.nb02 = a.nb01 * s.queries;
  a.nb03 = a.nb02 * s.heads;
  a.ne11 = s.kv;
  a.ne_12_2 = s.kv_heads;
  a.ne_12_3 = 1;
  a.ns10 = a.ns20 = s.d;  // row stride in elements
  a.nb11 = a.nb21 = 2 * size_t(s.d);
  a.nb12 = a.nb22 = a.nb11 * s.kv;
  a.nb13 = a.nb23 = a.nb12 * s.kv_heads;
  a.ne1 = s.heads;  // dst [d, heads, queries]
  a.ne2 = s.queries;
  a.ne3 = 1;
  a.scale = float(1.0 / std::sqrt(double(s.d)));
  a.m0 = a.m1 = 1.0f;  // powf(2, -0 / n_head_log2)
  a.n_head_log2 = 1 << int(std::floor(std::log2(double(s.heads))));
  if (s.masked) {  // without a mask ggml leaves ne3x and nb3x 0 (GGML_TENSOR_LOCALS of null)
    a.ne31 = s.queries;
    a.ne32 = a.ne33 = 1;
    a.nb31 = 2 * size_t(s.kv);
    a.nb32 = a.nb33 = a.nb31 * s.queries;
  }
  return a;
}

// softmax(scale * q.k + mask) . v per query and head, in double; `score_error` receives, per
// row, the bound on a score's error from q stored as half (2^-11 of each product), the float32
// dot product ((d + 4) units) and the mask's addition (one unit of the score).
std::vector<double> attention_reference(const AttnShape& s, const AttnData& x, double scale,
                                        std::vector<double>* score_error) {
  std::vector<double> out(size_t(s.queries) * s.heads * s.d);
  score_error->assign(size_t(s.queries) * s.heads, 0);
  for (int qi = 0; qi < s.queries; ++qi)
    for (int h = 0; h < s.heads; ++h) {
      const int g = h / (s.heads / s.kv_heads);
      const float* q = &x.q[(size_t(h) * s.queries + qi) * s.d];
      std::vector<double> score(s.kv);
      double top = -INFINITY, worst = 0;
      for (int j = 0; j < s.kv; ++j) {
        const _Float16* k = &x.k[(size_t(g) * s.kv + j) * s.d];
        double dot = 0, mag = 0;
        for (int i = 0; i < s.d; ++i) {
          dot += double(q[i]) * double(k[i]);
          mag += std::abs(double(q[i]) * double(k[i]));
        }
        const double mask = x.mask.empty() ? 0.0 : double(x.mask[size_t(qi) * s.kv + j]);
        score[j] = scale * dot + mask;
        if (std::isinf(mask)) continue;
        top = std::max(top, score[j]);
        worst = std::max(worst,
                         scale * mag * (0x1p-11 + (s.d + 4) * kUnit) + std::abs(score[j]) * kUnit);
      }
      (*score_error)[size_t(qi) * s.heads + h] = worst;
      double sum = 0;
      for (double& e : score) sum += (e = std::exp(e - top));
      double* o = &out[(size_t(qi) * s.heads + h) * s.d];
      for (int j = 0; j < s.kv; ++j)
        for (int i = 0; i < s.d; ++i)
          o[i] += score[j] / sum * double(x.v[(size_t(g) * s.kv + j) * s.d + i]);
    }
  return out;
}

Row flash_attn_ext_vec(Runner& r, const AttnShape& s) {
  const std::string name =
      "kernel_flash_attn_ext_vec_f16_dk" + std::to_string(s.d) + "_dv" + std::to_string(s.d);
  Row row = make_row(name, std::to_string(s.queries) + " queries x " + std::to_string(s.heads) +
                               " heads (" + std::to_string(s.kv_heads) + " KV) of " +
                               std::to_string(s.d) + ", KV length " + std::to_string(s.kv) +
                               (s.masked ? ", causal f16 mask" : ", no mask"));
  AttnData x;
  x.q = random_vector<float>(r.rng(), size_t(s.d) * s.queries * s.heads, -1, 1);
  x.k = random_vector<_Float16>(r.rng(), size_t(s.d) * s.kv * s.kv_heads, -1, 1);
  x.v = random_vector<_Float16>(r.rng(), size_t(s.d) * s.kv * s.kv_heads, -1, 1);
  if (s.masked) x.mask = causal_mask(r.rng(), s);
  const auto a = attn_args(s);
  const int nwg = 32, ncpsg = OP_FLASH_ATTN_EXT_VEC_NCPSG;
  int nsg = 1;
  while (2 * nwg * nsg * ncpsg < s.kv && nsg < 4) nsg *= 2;
  const size_t rows = size_t(s.queries) * s.heads;
  auto pad128 = [](size_t n) { return (n + 127) / 128 * 128; };
  const size_t smem = ((pad128(s.d) + 4 * ncpsg + 2 * pad128(s.d)) * nsg * 2 + 15) / 16 * 16;
  auto bq = r.upload(x.q), bk = r.upload(x.k), bv = r.upload(x.v);
  auto bmask = s.masked ? r.upload(x.mask) : bq;  // ggml binds src0 where there is no mask
  auto bpad = r.poisoned<float>(4);  // the padding pass's output, unread without padding
  auto btmp = r.poisoned<float>(rows * nwg * (s.d + 2));
  auto bout = r.poisoned<float>(rows * s.d);
  Constants c;
  for (int i = 0; i < 5; ++i) c.set_bool(i == 0 && s.masked, FC_FLASH_ATTN_EXT_VEC + i);
  c.set_int(s.d, FC_FLASH_ATTN_EXT_VEC + 20);
  c.set_int(s.d, FC_FLASH_ATTN_EXT_VEC + 21);
  c.set_int(nsg, FC_FLASH_ATTN_EXT_VEC + 22);
  c.set_int(nwg, FC_FLASH_ATTN_EXT_VEC + 23);
  r.set_constants(c.values.get());
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBytes(&a, sizeof(a), 0);
        e->setBuffer(bq.get(), 0, 1);
        e->setBuffer(bk.get(), 0, 2);
        e->setBuffer(bv.get(), 0, 3);
        e->setBuffer(bmask.get(), 0, 4);
        e->setBuffer(bq.get(), 0, 5);  // no sinks: ggml binds src0 there
        e->setBuffer(bpad.get(), 0, 6);
        e->setBuffer(btmp.get(), 0, 7);
      },
      MTL::Size(s.queries, s.heads, nwg), MTL::Size(32, nsg, 1), &row.note, smem);
  Constants cr;
  cr.set_int(s.d, FC_FLASH_ATTN_EXT_VEC_REDUCE + 0);
  cr.set_int(nwg, FC_FLASH_ATTN_EXT_VEC_REDUCE + 1);
  r.set_constants(cr.values.get());
  const ggml_metal_kargs_flash_attn_ext_vec_reduce ar{int32_t(rows)};
  if (row.ran)
    row.ran = r.dispatch_groups(
        "kernel_flash_attn_ext_vec_reduce",
        [&](MTL::ComputeCommandEncoder* e) {
          e->setBytes(&ar, sizeof(ar), 0);
          e->setBuffer(btmp.get(), 0, 1);
          e->setBuffer(bout.get(), 0, 2);
        },
        MTL::Size(rows, 1, 1), MTL::Size(32 * nwg, 1, 1), &row.note);
  r.set_constants(nullptr);
  std::vector<double> score_error;
  const auto want = attention_reference(s, x, double(a.scale), &score_error);
  const auto got = Runner::read<float>(bout, want.size());
  double tol = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = std::abs(double(got[i]) - want[i]);
    row.max_error = std::isnan(e) ? double(INFINITY) : std::max(row.max_error, e);
    // |v| <= 1. A score error δ moves the output by at most 2δ max|v| (the weights' relative
    // change, re-normalised); the float softmax and weighted sum add (kv + 16) units.
    tol = std::max(tol, 2 * score_error[i / s.d] + (s.kv + 16) * kUnit);
  }
  row.tolerance = tol;
  return row;
}

}  // namespace

std::vector<Row> ggml_rows() {
  Runner r;
  std::vector<Row> rows;
  rows.push_back(get_rows_f32(r));
  rows.push_back(get_rows_q8_0(r));
  rows.push_back(cpy<float, _Float16>(r, "kernel_cpy_f32_f16", 300, 5, 3));
  rows.push_back(cpy<_Float16, float>(r, "kernel_cpy_f16_f32", 77, 13, 3));
  rows.push_back(rope_norm(r, {96, 5, 7, 64}));
  // Row counts a multiple of the rows per threadgroup (2 for Q8_0, 4 for Q4_K, Q6_K), then not.
  for (int ne01 : {36, 37}) {
    rows.push_back(mul_mv(r, kQ8_0, 32 * 23, ne01));
    rows.push_back(mul_mv(r, kQ4_K, 256 * 3, ne01));
    rows.push_back(mul_mv(r, kQ6_K, 256 * 3, ne01));
  }
  rows.push_back(argsort(r, 1000, 3));
  // `so4 += tiisg; for (i < DV4/NL) so4[i*NL] = 0`: with NL = 8 lanes t and t + 8 both zero
  // so4[t + 8], a write-write race of the same value (race.threadgroup with the race check on).
  Row masked = flash_attn_ext_vec(r, {64, 3, 4, 2, 96, true});
  masked.known_bug =
      "zeroing its output scratch, lane t writes so4[t + i * NL] for i < DV4 / NL, so lanes t and "
      "t + NL store the same zero: a race by MSL's memory model that a GPU forgives";
  masked.known_check = "race.threadgroup";
  rows.push_back(masked);
  // Without a mask ggml's host leaves ne32 = ne33 = 0, and the kernel computes
  // `iq2 % args.ne32` before it knows there is no mask: undefined in MSL (an Apple GPU returns
  // some value and the pointer is never read); the CPU traps.
  Row unmasked = flash_attn_ext_vec(r, {64, 3, 4, 2, 96, false});
  unmasked.known_bug =
      "the kernel computes `iq2 % args.ne32` although ggml's host sets "
      "ne32 = 0 when there is no mask: a remainder by zero, undefined in MSL";
  unmasked.known_check = "kernel.fault";
  rows.push_back(unmasked);
  return rows;
}

}  // namespace metalsim::yardstick
