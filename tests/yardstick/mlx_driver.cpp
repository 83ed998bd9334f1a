// MLX's kernels (ml-explore/mlx, mlx/backend/metal/kernels) run through metalsim the way MLX's host
// code (mlx/backend/metal/*.cpp) dispatches them, against references written here in double.
// Inputs from a fixed seed; outputs start poisoned (NaN), so an element left unwritten fails.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "harness.h"

namespace metalsim::yardstick {
namespace {

constexpr size_t kMaxThreads = 1024;  // maxTotalThreadsPerThreadgroup of MLX's kernels here

Row make_row(std::string file, std::string instance, std::string shape) {
  Row r;
  r.file = std::move(file);
  r.instance = std::move(instance);
  r.shape = std::move(shape);
  return r;
}

template <class T>
const char* type_name();
template <>
const char* type_name<float>() {
  return "float32";
}
template <>
const char* type_name<_Float16>() {
  return "float16";
}

// A float32 sum of n terms, in any order, is within n roundings (unit 2^-24) of the sum of the
// terms' magnitudes (the classical bound): the tolerance of sums, dot products and scans, with
// the error measured relative to that sum.
double sum_bound(size_t n) { return double(n) * 0x1p-24; }

// The per-type tolerance of a normalisation's result: a few roundings of the output type.
template <class T>
double output_tolerance() {
  return std::is_same_v<T, float> ? 2e-6 : 2e-3;
}

// ------------------------------ rms_norm.metal (normalization.cpp: RMSNorm::eval_gpu)
template <class T>
Row rms_norm(Runner& r, size_t rows, uint32_t axis) {
  const bool looped = axis > 4096;  // RMS_LOOPED_LIMIT
  Row row = make_row("rms_norm.metal", std::string(looped ? "rms_looped" : "rms") + type_name<T>(),
                     std::to_string(rows) + " rows of " + std::to_string(axis));
  const auto x = random_vector<T>(r.rng(), rows * axis, -3, 3);
  const auto w = random_vector<T>(r.rng(), axis, 0.5, 1.5);
  const float eps = 1e-5f;
  const uint32_t w_stride = 1;
  auto bx = r.upload(x), bw = r.upload(w);
  auto bout = r.poisoned<T>(x.size());
  size_t group = kMaxThreads;
  if (!looped) group = 32 * (((axis + 3) / 4 + 31) / 32);  // RMS_N_READS = 4 per thread
  row.ran = r.dispatch_threads(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bw.get(), 0, 1);
        e->setBuffer(bout.get(), 0, 2);
        e->setBytes(&eps, sizeof(eps), 3);
        e->setBytes(&axis, sizeof(axis), 4);
        e->setBytes(&w_stride, sizeof(w_stride), 5);
      },
      MTL::Size(rows * group, 1, 1), MTL::Size(group, 1, 1), &row.note);
  std::vector<double> want(x.size());
  for (size_t i = 0; i < rows; ++i) {
    double ss = 0;
    for (size_t j = 0; j < axis; ++j) ss += double(x[i * axis + j]) * double(x[i * axis + j]);
    const double inv = 1.0 / std::sqrt(ss / axis + double(eps));
    for (size_t j = 0; j < axis; ++j)
      want[i * axis + j] = double(w[j]) * double(x[i * axis + j]) * inv;
  }
  row.max_error = relative_error(widened(Runner::read<T>(bout, x.size())), want);
  row.tolerance = output_tolerance<T>();
  return row;
}

// ------------------------------ layer_norm.metal (normalization.cpp: LayerNorm::eval_gpu)
template <class T>
Row layer_norm(Runner& r, size_t rows, uint32_t axis) {
  const bool looped = axis > 6656;
  const size_t n_reads = looped ? 4 : 8;
  Row row = make_row("layer_norm.metal",
                     std::string(looped ? "layer_norm_looped" : "layer_norm") + type_name<T>(),
                     std::to_string(rows) + " rows of " + std::to_string(axis));
  const auto x = random_vector<T>(r.rng(), rows * axis, -2, 4);
  const auto w = random_vector<T>(r.rng(), axis, 0.5, 1.5);
  const auto b = random_vector<T>(r.rng(), axis, -1, 1);
  const float eps = 1e-5f;
  const uint32_t stride = 1;
  auto bx = r.upload(x), bw = r.upload(w), bb = r.upload(b);
  auto bout = r.poisoned<T>(x.size());
  size_t group = looped ? kMaxThreads : 32 * (((axis + n_reads - 1) / n_reads + 31) / 32);
  row.ran = r.dispatch_threads(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bw.get(), 0, 1);
        e->setBuffer(bb.get(), 0, 2);
        e->setBuffer(bout.get(), 0, 3);
        e->setBytes(&eps, sizeof(eps), 4);
        e->setBytes(&axis, sizeof(axis), 5);
        e->setBytes(&stride, sizeof(stride), 6);
        e->setBytes(&stride, sizeof(stride), 7);
      },
      MTL::Size(rows * group, 1, 1), MTL::Size(group, 1, 1), &row.note);
  std::vector<double> want(x.size());
  for (size_t i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (size_t j = 0; j < axis; ++j) mean += double(x[i * axis + j]);
    mean /= axis;
    for (size_t j = 0; j < axis; ++j)
      var += (double(x[i * axis + j]) - mean) * (double(x[i * axis + j]) - mean);
    const double inv = 1.0 / std::sqrt(var / axis + double(eps));
    for (size_t j = 0; j < axis; ++j)
      want[i * axis + j] = double(w[j]) * (double(x[i * axis + j]) - mean) * inv + double(b[j]);
  }
  row.max_error = relative_error(widened(Runner::read<T>(bout, x.size())), want);
  row.tolerance = output_tolerance<T>() * 4;  // mean and variance add roundings
  return row;
}

// ------------------------------ arg_reduce.metal (primitives.cpp: ArgReduce::eval_gpu)
// A [outer, axis] float32 array reduced along `along` (0: strided, 1: contiguous).
Row arg_reduce(Runner& r, bool max, size_t outer, size_t inner, int along) {
  Row row = make_row(
      "arg_reduce.metal", std::string(max ? "argmax_" : "argmin_") + "float32",
      std::to_string(outer) + "x" + std::to_string(inner) + " along axis " + std::to_string(along));
  const auto x = random_vector<float>(r.rng(), outer * inner, -100, 100);
  const size_t axis_size = along == 1 ? inner : outer;
  const size_t n_out = along == 1 ? outer : inner;
  const int shape = int(n_out);
  const int64_t in_stride = along == 1 ? int64_t(inner) : 1, out_stride = 1;
  const int64_t axis_stride = along == 1 ? 1 : int64_t(inner);
  const size_t ndim = 1;
  auto bx = r.upload(x);
  auto bout = r.poisoned<uint32_t>(n_out);
  size_t group = std::min((axis_size + 3) / 4, kMaxThreads);
  group = (group + 31) / 32 * 32;
  row.ran = r.dispatch_threads(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
        e->setBytes(&shape, sizeof(shape), 2);
        e->setBytes(&in_stride, sizeof(in_stride), 3);
        e->setBytes(&out_stride, sizeof(out_stride), 4);
        e->setBytes(&ndim, sizeof(ndim), 5);
        e->setBytes(&axis_stride, sizeof(axis_stride), 6);
        e->setBytes(&axis_size, sizeof(axis_size), 7);
      },
      MTL::Size(group, n_out, 1), MTL::Size(group, 1, 1), &row.note);
  const auto got = Runner::read<uint32_t>(bout, n_out);
  size_t wrong = 0;
  for (size_t o = 0; o < n_out; ++o) {
    size_t best = 0;
    for (size_t k = 1; k < axis_size; ++k) {
      const float a = x[along == 1 ? o * inner + k : k * inner + o];
      const float c = x[along == 1 ? o * inner + best : best * inner + o];
      if (max ? a > c : a < c) best = k;
    }
    wrong += got[o] == best ? 0 : 1;
  }
  row.max_error = double(wrong);
  if (row.ran) row.note = "error = indices that differ";
  return row;
}

// ------------------------------ scan.metal (scan.cpp: scan_gpu_inplace), float32 sums
Row contiguous_scan(Runner& r, size_t rows, size_t size, bool inclusive, bool reverse) {
  Row row = make_row("scan.metal",
                     std::string("contig_scan_") + (reverse ? "reverse_" : "") +
                         (inclusive ? "inclusive" : "exclusive") + "_sum_float32_float32",
                     std::to_string(rows) + " rows of " + std::to_string(size));
  const auto x = random_vector<float>(r.rng(), rows * size, -1, 1);
  auto bx = r.upload(x);
  auto bout = r.poisoned<float>(x.size());
  const size_t n_reads = 4, per_simd = n_reads * 32;
  size_t group = kMaxThreads;
  if (size <= n_reads * 1024) group = (size + per_simd - 1) / per_simd * 32;
  else if (size <= n_reads * 2048) group = (size / 2 + per_simd - 1) / per_simd * 32;
  group = std::min(group, kMaxThreads);
  row.ran = r.dispatch_threads(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
        e->setBytes(&size, sizeof(size), 2);
      },
      MTL::Size(group, rows, 1), MTL::Size(group, 1, 1), &row.note);
  std::vector<double> want(x.size()), scale(x.size());
  for (size_t i = 0; i < rows; ++i) {
    double acc = 0, mag = 0;
    for (size_t s = 0; s < size; ++s) {
      const size_t j = i * size + (reverse ? size - 1 - s : s);
      if (inclusive) acc += double(x[j]), mag += std::abs(double(x[j]));
      want[j] = acc;
      scale[j] = mag;
      if (!inclusive) acc += double(x[j]), mag += std::abs(double(x[j]));
    }
  }
  // A float sum of n terms: within n roundings of the sum of magnitudes.
  const auto got = widened(Runner::read<float>(bout, x.size()));
  double e = 0;
  for (size_t j = 0; j < x.size(); ++j)
    e = std::max(e, std::abs(got[j] - want[j]) / std::max(1.0, scale[j]));
  const bool unwritten =
      std::any_of(got.begin(), got.end(), [](double v) { return std::isnan(v); });
  row.max_error = unwritten || std::isnan(e) ? double(INFINITY) : e;
  row.tolerance = sum_bound(size);
  if (row.ran) row.note = "error relative to the sum of magnitudes";
  return row;
}

Row strided_scan(Runner& r, size_t size, size_t stride, bool inclusive) {
  Row row = make_row("scan.metal",
                     std::string("strided_scan_") + (inclusive ? "inclusive" : "exclusive") +
                         "_sum_float32_float32",
                     std::to_string(size) + "x" + std::to_string(stride) + " along axis 0");
  const auto x = random_vector<float>(r.rng(), size * stride, -1, 1);
  auto bx = r.upload(x);
  auto bout = r.poisoned<float>(x.size());
  const size_t bn = 32, stride_blocks = (stride + bn - 1) / bn, group = (bn / 4) * 32;
  row.ran = r.dispatch_threads(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
        e->setBytes(&size, sizeof(size), 2);
        e->setBytes(&stride, sizeof(stride), 3);
        e->setBytes(&stride_blocks, sizeof(stride_blocks), 4);
      },
      MTL::Size(group, stride_blocks, 1), MTL::Size(group, 1, 1), &row.note);
  std::vector<double> want(x.size()), scale(x.size());
  for (size_t c = 0; c < stride; ++c) {
    double acc = 0, mag = 0;
    for (size_t s = 0; s < size; ++s) {
      const size_t j = s * stride + c;
      if (inclusive) acc += double(x[j]), mag += std::abs(double(x[j]));
      want[j] = acc;
      scale[j] = mag;
      if (!inclusive) acc += double(x[j]), mag += std::abs(double(x[j]));
    }
  }
  const auto got = widened(Runner::read<float>(bout, x.size()));
  double e = 0;
  bool nan = false;
  for (size_t j = 0; j < x.size(); ++j) {
    nan = nan || std::isnan(got[j]);
    e = std::max(e, std::abs(got[j] - want[j]) / std::max(1.0, scale[j]));
  }
  row.max_error = nan ? double(INFINITY) : e;
  row.tolerance = sum_bound(size);
  if (row.ran) row.note = "error relative to the sum of magnitudes";
  return row;
}

// ------------------------------ sort.metal (sort.cpp: single_block_sort), contiguous rows
Row block_sort(Runner& r, bool argsort, size_t rows, int size) {
  const int tn = 4, potential = (size + tn - 1) / tn;
  const int bn = potential > 256   ? 512
                 : potential > 128 ? 256
                 : potential > 64  ? 128
                 : potential > 32  ? 64
                                   : 32;
  const std::string name =
      std::string(argsort ? "carg_block_sort_float32_uint32" : "c_block_sort_float32_float32") +
      "_bn" + std::to_string(bn) + "_tn" + std::to_string(tn);
  Row row = make_row("sort.metal", name, std::to_string(rows) + " rows of " + std::to_string(size));
  const auto x = random_vector<float>(r.rng(), rows * size_t(size), -1000, 1000);
  auto bx = r.upload(x);
  auto bout = r.poisoned<float>(x.size());  // uint32 indices or floats: 4 bytes each
  const int one = 1;
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
        e->setBytes(&size, sizeof(size), 2);
        e->setBytes(&one, sizeof(one), 3);
        e->setBytes(&one, sizeof(one), 4);
        e->setBytes(&size, sizeof(size), 5);
        e->setBytes(&size, sizeof(size), 6);
      },
      MTL::Size(1, rows, 1), MTL::Size(size_t(bn), 1, 1), &row.note);
  const auto indices = Runner::read<uint32_t>(bout, x.size());
  const auto values = Runner::read<float>(bout, x.size());
  size_t wrong = 0;
  for (size_t i = 0; i < rows; ++i) {
    std::vector<size_t> order(static_cast<size_t>(size));
    std::iota(order.begin(), order.end(), 0);
    const float* xr = x.data() + i * size_t(size);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xr[a] < xr[b]; });
    for (size_t k = 0; k < size_t(size); ++k) {
      const size_t at = i * size_t(size) + k;
      const bool same = argsort ? indices[at] == order[k] : values[at] == xr[order[k]];
      wrong += same ? 0 : 1;
    }
  }
  row.max_error = double(wrong);
  if (row.ran) row.note = argsort ? "error = indices that differ" : "error = values that differ";
  return row;
}

// ------------------------------ rope.metal (rope.cpp: RoPE::eval_gpu, the single-step case)
// The threadgroup of MLX's get_block_dims: powers of two, grown in turn along x, y, z while each
// stays within its dimension, up to 2^10 threads.
MTL::Size block_dims(int x, int y, int z) {
  int p[3] = {0, 0, 0}, sum = 0;
  const int dims[3] = {x, y, z};
  for (bool grew = true; grew && sum < 10;) {
    grew = false;
    for (int a = 0; a < 3 && sum < 10; ++a) {
      if (dims[a] >= (1 << (p[a] + 1))) {
        ++p[a];
        ++sum;
        grew = true;
      }
    }
  }
  return MTL::Size(size_t(1) << p[0], size_t(1) << p[1], size_t(1) << p[2]);
}

// rope_single_float32: rows of `dims` values at one position `offset`; pairs (i, i + dims/2), or
// (2i, 2i + 1) when traditional, rotated by offset * scale * base^(-i / (dims/2)).
Row rope_single(Runner& r, bool traditional, uint32_t rows, uint32_t dims, int offset) {
  Row row =
      make_row("rope.metal", "rope_single_float32",
               std::to_string(rows) + " rows of " + std::to_string(dims) +
                   (traditional ? ", traditional" : "") + ", offset " + std::to_string(offset));
  const auto x = random_vector<float>(r.rng(), size_t(rows) * dims, -1, 1);
  auto bx = r.upload(x);
  auto bout = r.poisoned<float>(x.size());
  const float scale = 1.0f, base = std::log2(10000.0f);
  const int64_t stride = dims;
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  bool forward = true, transpose = false;
  constants->setConstantValue(&forward, MTL::DataTypeBool, 1);
  constants->setConstantValue(&traditional, MTL::DataTypeBool, 2);
  constants->setConstantValue(&transpose, MTL::DataTypeBool, 3);
  r.set_constants(constants.get());
  const uint32_t half_dims = dims / 2;
  row.ran = r.dispatch_threads(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
        e->setBytes(&offset, sizeof(offset), 2);
        e->setBytes(&scale, sizeof(scale), 3);
        e->setBytes(&stride, sizeof(stride), 4);
        e->setBytes(&base, sizeof(base), 10);
      },
      MTL::Size(half_dims, rows, 1), block_dims(int(half_dims), int(rows), 1), &row.note);
  r.set_constants(nullptr);
  std::vector<double> want(x.size());
  for (uint32_t y = 0; y < rows; ++y) {
    for (uint32_t i = 0; i < half_dims; ++i) {
      const size_t a = y * size_t(dims) + (traditional ? 2 * i : i);
      const size_t b = traditional ? a + 1 : a + half_dims;
      const double theta =
          double(offset) * double(scale) * std::pow(10000.0, -double(i) / double(half_dims));
      want[a] = double(x[a]) * std::cos(theta) - double(x[b]) * std::sin(theta);
      want[b] = double(x[a]) * std::sin(theta) + double(x[b]) * std::cos(theta);
    }
  }
  row.max_error = relative_error(widened(Runner::read<float>(bout, x.size())), want);
  // The kernel's theta = offset * scale * exp2(-(i / (dims/2)) * log2(base)) in float: the exponent
  // (|e| <= log2(10000) < 13.3) carries 3 roundings, so exp2 is off by ln2 * 13.3 * 3 + 2 (its own)
  // < 30 units of 2^-24 relative, the product by one more: |theta| <= |offset| moves by up to
  // 31 * 2^-24 * |offset|, the result by that times |x1| + |x2| <= 2, plus a few output roundings.
  row.tolerance = (31 * std::abs(double(offset)) * 2 + 4) * 0x1p-24;
  return row;
}

// rope_float32 (RoPE::eval_gpu, the general case): a contiguous [batch, heads, seq, dims] array,
// position t of batch b at offsets[b] + t (one offset per batch element, offset_stride 1). A
// thread rotates one pair at one position for up to 4 heads (n_per_thread), the grid is
// (dims / 2, seq, batch * ceil(heads / 4)).
Row rope_positions(Runner& r, bool traditional, int batch, int heads, uint32_t seq, uint32_t dims,
                   const std::vector<int>& offsets) {
  Row row = make_row("rope.metal", "rope_float32",
                     std::to_string(batch) + "x" + std::to_string(heads) + "x" +
                         std::to_string(seq) + "x" + std::to_string(dims) +
                         (traditional ? ", traditional" : "") + ", offsets " +
                         std::to_string(offsets.front()) + ".." + std::to_string(offsets.back()));
  const size_t n = size_t(batch) * size_t(heads) * seq * dims;
  const auto x = random_vector<float>(r.rng(), n, -1, 1);
  auto bx = r.upload(x), boff = r.upload(offsets);
  auto bout = r.poisoned<float>(n);
  const float scale = 1.0f, base = std::log2(10000.0f);
  const int64_t strides[3] = {int64_t(seq) * dims, dims, 1}, offset_stride = 1;
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  bool forward = true, transpose = false;
  constants->setConstantValue(&forward, MTL::DataTypeBool, 1);
  constants->setConstantValue(&traditional, MTL::DataTypeBool, 2);
  constants->setConstantValue(&transpose, MTL::DataTypeBool, 3);
  r.set_constants(constants.get());
  const uint32_t half_dims = dims / 2;
  const uint32_t z = uint32_t(batch) * uint32_t((heads + 3) / 4);
  row.ran = r.dispatch_threads(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bx.get(), 0, 0);
        e->setBuffer(bout.get(), 0, 1);
        e->setBuffer(boff.get(), 0, 2);
        e->setBytes(&scale, sizeof(scale), 3);
        e->setBytes(strides, sizeof(strides), 4);
        e->setBytes(strides, sizeof(strides), 5);
        e->setBytes(&offset_stride, sizeof(offset_stride), 6);
        e->setBytes(&heads, sizeof(heads), 7);
        e->setBytes(&base, sizeof(base), 10);
      },
      MTL::Size(half_dims, seq, z), block_dims(int(half_dims), int(seq), int(z)), &row.note);
  r.set_constants(nullptr);
  std::vector<double> want(n);
  int largest = 0;
  for (size_t m = 0; m < size_t(batch) * size_t(heads); ++m) {
    for (uint32_t t = 0; t < seq; ++t) {
      const int position = offsets[m / size_t(heads)] + int(t);
      largest = std::max(largest, std::abs(position));
      const size_t at = (m * seq + t) * dims;
      for (uint32_t i = 0; i < half_dims; ++i) {
        const size_t a = at + (traditional ? 2 * i : i), b = traditional ? a + 1 : a + half_dims;
        const double theta = position * std::pow(10000.0, -double(i) / double(half_dims));
        want[a] = double(x[a]) * std::cos(theta) - double(x[b]) * std::sin(theta);
        want[b] = double(x[a]) * std::sin(theta) + double(x[b]) * std::cos(theta);
      }
    }
  }
  row.max_error = relative_error(widened(Runner::read<float>(bout, n)), want);
  row.tolerance = (31 * double(largest) * 2 + 4) * 0x1p-24;  // as rope_single, at the largest
  return row;
}

// ------------------------------ reduce.metal (reduce.cpp: Reduce::eval_gpu), float32 sums
// The largest |got - want| / max(1, mag) of sums whose terms' magnitudes add up to `mag`; a NaN
// (an output left unwritten) is infinite.
double sum_error(const std::vector<float>& got, const std::vector<double>& want,
                 const std::vector<double>& mag) {
  double e = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::abs(double(got[i]) - want[i]) / std::max(1.0, mag[i]);
    if (std::isnan(d)) return double(INFINITY);
    e = std::max(e, d);
  }
  return e;
}

// The arguments 2..9 (10) of MLX's row and column reductions (RowReduceArgs / ColReduceArgs::
// encode) for one kept axis of `kept` elements at `kept_stride`, or none (ndim 0, where MLX binds
// a single 0 so that no vector is empty), and one reduced axis beside the row or column.
struct ReduceArgs {
  uint64_t size = 0;   // row_size, or the column's reduction_size
  int64_t second = 0;  // non_row_reductions, or the column's reduction_stride
  int shape = 0;       // the kept axis (0 when none)
  int64_t stride = 0;
  int ndim = 0;
  int reduce_shape = 0;  // the other reduced axes: none here (MLX pushes a 0)
  int64_t reduce_stride = 0;
  int reduce_ndim = 0;
  void bind(MTL::ComputeCommandEncoder* e) const {
    e->setBytes(&size, sizeof(size), 2);
    e->setBytes(&second, sizeof(second), 3);
    e->setBytes(&shape, sizeof(shape), 4);
    e->setBytes(&stride, sizeof(stride), 5);
    e->setBytes(&ndim, sizeof(ndim), 6);
    e->setBytes(&reduce_shape, sizeof(reduce_shape), 7);
    e->setBytes(&reduce_stride, sizeof(reduce_stride), 8);
    e->setBytes(&reduce_ndim, sizeof(reduce_ndim), 9);
  }
};

// Sums of x (rows x cols, row-major) along `axis` (1: each row, 0: each column; -1: all), in
// double, and the sums of the terms' magnitudes.
void reference_sums(const std::vector<float>& x, size_t rows, size_t cols, int axis,
                    std::vector<double>* want, std::vector<double>* mag) {
  const size_t n_out = axis < 0 ? 1 : axis == 1 ? rows : cols;
  want->assign(n_out, 0);
  mag->assign(n_out, 0);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      const size_t o = axis < 0 ? 0 : axis == 1 ? i : j;
      (*want)[o] += double(x[i * cols + j]);
      (*mag)[o] += std::abs(double(x[i * cols + j]));
    }
  }
}

// all_reduce_dispatch: one threadgroup up to REDUCE_N_READS * 1024 elements, else two passes
// through an intermediate of 32 * REDUCE_N_READS partial sums (inputs under 2^26 bytes).
Row all_reduce(Runner& r, size_t n) {
  constexpr size_t n_reads = 4;
  const bool two_pass = n > n_reads * 1024;
  Row row = make_row("reduce.metal", "all_reduce_sumfloat32",
                     std::to_string(n) + (two_pass ? " elements, 2 passes" : " elements"));
  const auto x = random_vector<float>(r.rng(), n, -1, 1);
  auto bx = r.upload(x);
  auto bout = r.poisoned<float>(1);
  auto pass = [&](const NS::SharedPtr<MTL::Buffer>& in, const NS::SharedPtr<MTL::Buffer>& out,
                  uint64_t in_size, uint64_t row_size, size_t group, size_t n_rows) {
    return r.dispatch_threads(
        row.instance,
        [&](MTL::ComputeCommandEncoder* e) {
          e->setBuffer(in.get(), 0, 0);
          e->setBuffer(out.get(), 0, 1);
          e->setBytes(&in_size, sizeof(in_size), 2);
          e->setBytes(&row_size, sizeof(row_size), 3);
        },
        MTL::Size(group, n_rows, 1), MTL::Size(group, 1, 1), &row.note);
  };
  if (!two_pass) {
    const size_t group = ((n + n_reads - 1) / n_reads + 31) / 32 * 32;
    row.ran = pass(bx, bout, n, n, group, 1);
  } else {
    const size_t n_rows = 32 * n_reads, row_size = (n + n_rows - 1) / n_rows;
    const size_t group = (std::min((row_size + n_reads - 1) / n_reads, kMaxThreads) + 31) / 32 * 32;
    auto partial = r.poisoned<float>(n_rows);
    row.ran =
        pass(bx, partial, n, row_size, group, n_rows) && pass(partial, bout, n_rows, n_rows, 32, 1);
  }
  std::vector<double> want, mag;
  reference_sums(x, 1, n, -1, &want, &mag);
  row.max_error = sum_error(Runner::read<float>(bout, 1), want, mag);
  row.tolerance = sum_bound(n);
  if (row.ran) row.note = "error relative to the sum of magnitudes";
  return row;
}

// row_reduce_general_dispatch for a contiguous rows x cols array summed along its rows: rows of
// up to 64 go to row_reduce_small (one thread a row when there are no other reductions), longer
// ones with at least 32 rows to row_reduce_simple (REDUCE_N_WRITES rows a threadgroup).
Row row_reduce(Runner& r, size_t rows, size_t cols) {
  const bool small = cols <= 64;
  Row row =
      make_row("reduce.metal",
               small ? "row_reduce_small_1_reduce_sumfloat32" : "row_reduce_simple_sumfloat32",
               std::to_string(rows) + " rows of " + std::to_string(cols));
  const auto x = random_vector<float>(r.rng(), rows * cols, -1, 1);
  auto bx = r.upload(x);
  auto bout = r.poisoned<float>(rows);
  auto bind_io = [&](MTL::ComputeCommandEncoder* e) {
    e->setBuffer(bx.get(), 0, 0);
    e->setBuffer(bout.get(), 0, 1);
  };
  if (small) {
    ReduceArgs a;
    a.size = cols;
    a.second = 1;  // non_row_reductions: the product of no other reduced axes
    a.shape = int(rows), a.stride = int64_t(cols), a.ndim = 1;
    row.ran = r.dispatch_threads(
        row.instance, [&](MTL::ComputeCommandEncoder* e) { bind_io(e), a.bind(e); },
        MTL::Size(rows, 1, 1), MTL::Size(std::min(rows, kMaxThreads), 1, 1), &row.note);
  } else {
    const uint64_t row_size = cols;
    const int64_t out_size = int64_t(rows);
    size_t group = 32;  // threadgroup_size_from_row_size
    if (cols > 1024) group = std::min(((cols + 3) / 4 + 31) / 32 * 32, kMaxThreads);
    else if (cols > 512) group = 128;
    row.ran = r.dispatch_threads(
        row.instance,
        [&](MTL::ComputeCommandEncoder* e) {
          bind_io(e);
          e->setBytes(&row_size, sizeof(row_size), 2);
          e->setBytes(&out_size, sizeof(out_size), 3);
        },
        MTL::Size(group, (rows + 3) / 4, 1), MTL::Size(group, 1, 1), &row.note);
  }
  std::vector<double> want, mag;
  reference_sums(x, rows, cols, 1, &want, &mag);
  row.max_error = sum_error(Runner::read<float>(bout, rows), want, mag);
  row.tolerance = sum_bound(cols);
  if (row.ran) row.note = "error relative to the sum of magnitudes";
  return row;
}

// strided_reduce_general_dispatch for a contiguous rows x cols array summed along axis 0 (each
// column): reduction_size rows at reduction_stride cols, no kept axis beyond the columns. Up to
// 256 rows go to col_reduce_looped (BM 32, BN 32: 8 simdgroups per 32 columns); more, with fewer
// than 32 * 1024 columns, to col_reduce_2pass into 32 partial rows, then col_reduce_looped over
// those.
Row col_reduce(Runner& r, size_t rows, size_t cols) {
  const bool two_pass = rows > 256;
  Row row = make_row("reduce.metal",
                     two_pass ? "col_reduce_2pass_1_32_32_reduce_sumfloat32"
                              : "col_reduce_looped_1_32_32_reduce_sumfloat32",
                     std::to_string(rows) + "x" + std::to_string(cols) + " along axis 0" +
                         (two_pass ? ", then col_reduce_looped" : ""));
  const auto x = random_vector<float>(r.rng(), rows * cols, -1, 1);
  auto bx = r.upload(x);
  auto bout = r.poisoned<float>(cols);
  const size_t group = 8 * 32, blocks = (cols + 31) / 32;
  auto pass = [&](const std::string& name, const NS::SharedPtr<MTL::Buffer>& in,
                  const NS::SharedPtr<MTL::Buffer>& out, const ReduceArgs& a, size_t grid_y,
                  bool with_out_size) {
    const uint64_t non_col_reductions = 1, out_size = 1;  // out.size() / reduction_stride
    return r.dispatch_threads(
        name,
        [&](MTL::ComputeCommandEncoder* e) {
          e->setBuffer(in.get(), 0, 0);
          e->setBuffer(out.get(), 0, 1);
          a.bind(e);
          e->setBytes(&non_col_reductions, sizeof(non_col_reductions), 10);
          if (with_out_size) e->setBytes(&out_size, sizeof(out_size), 11);
        },
        MTL::Size(group * blocks, grid_y, 1), MTL::Size(group, 1, 1), &row.note);
  };
  // The reduced axis travels as the one reduce_shape / reduce_strides entry (MLX appends it).
  ReduceArgs a;
  a.size = rows, a.second = int64_t(cols);
  a.reduce_shape = int(rows), a.reduce_stride = int64_t(cols), a.reduce_ndim = 1;
  if (!two_pass) {
    row.ran = pass(row.instance, bx, bout, a, 1, false);
  } else {
    constexpr size_t outer_blocks = 32;
    auto partial = r.poisoned<float>(outer_blocks * cols);
    ReduceArgs second;  // ColReduceArgs(intermediate), plus the 32 partial rows
    second.size = outer_blocks, second.second = int64_t(cols);
    second.reduce_shape = int(outer_blocks), second.reduce_stride = int64_t(cols);
    second.reduce_ndim = 1;
    row.ran = pass(row.instance, bx, partial, a, outer_blocks, true) &&
              pass("col_reduce_looped_1_32_32_reduce_sumfloat32", partial, bout, second, 1, false);
  }
  std::vector<double> want, mag;
  reference_sums(x, rows, cols, 0, &want, &mag);
  row.max_error = sum_error(Runner::read<float>(bout, cols), want, mag);
  row.tolerance = sum_bound(rows);
  if (row.ran) row.note = "error relative to the sum of magnitudes";
  return row;
}

// ------------------------------ scaled_dot_product_attention.metal (sdpa_vector)
// Arguments declared [[buffer(N), function_constant(c)]] with c false do not exist in Metal's
// pipeline, and MLX binds nothing there (sdpa_vector's 11-17, the steel GEMM's 2, 5, 6, 7); nor
// does this driver: metalsim drops them the same way (docs/front.md).

// Softmax attention in double, per query head h over key head h / gqa_factor: q [heads, d],
// k and v [kv_heads, n_keys, d]. `largest_score` gets the largest scale * sum |q_i k_i|.
std::vector<double> attention(const std::vector<double>& q, const std::vector<double>& k,
                              const std::vector<double>& v, int heads, int gqa_factor, int n_keys,
                              int d, double scale, double* largest_score) {
  std::vector<double> out(q.size());
  const size_t dims = size_t(d), keys = size_t(n_keys);
  for (size_t h = 0; h < size_t(heads); ++h) {
    const double* qh = q.data() + h * dims;
    const double* kh = k.data() + h / size_t(gqa_factor) * keys * dims;
    const double* vh = v.data() + h / size_t(gqa_factor) * keys * dims;
    std::vector<double> s(keys, 0);
    double top = -double(INFINITY);
    for (size_t j = 0; j < keys; ++j) {
      double mag = 0;
      for (size_t i = 0; i < dims; ++i) {
        s[j] += scale * qh[i] * kh[j * dims + i];
        mag += std::abs(scale * qh[i] * kh[j * dims + i]);
      }
      *largest_score = std::max(*largest_score, mag);
      top = std::max(top, s[j]);
    }
    double total = 0;
    for (double& x : s) total += (x = std::exp(x - top));
    for (size_t i = 0; i < dims; ++i) {
      double o = 0;
      for (size_t j = 0; j < keys; ++j) o += s[j] * vh[j * dims + i];
      out[h * dims + i] = o / total;
    }
  }
  return out;
}

// sdpa_vector_float_<D>_<D>: q [1, heads, 1, D] against k, v [1, kv_heads, n_keys, D] (grouped
// query attention: heads / kv_heads queries share a key head), no mask. One threadgroup of 1024
// (32 simdgroups, one key each in turn) per query head; grid (heads, 1, 1) threadgroups.
template <int D>
Row sdpa_vector(Runner& r, int heads, int kv_heads, int n_keys) {
  Row row = make_row("scaled_dot_product_attention.metal",
                     "sdpa_vector_float_" + std::to_string(D) + "_" + std::to_string(D),
                     std::to_string(heads) + " query heads over " + std::to_string(kv_heads) +
                         " kv heads, " + std::to_string(n_keys) + " keys, D " + std::to_string(D));
  const auto q = random_vector<float>(r.rng(), size_t(heads) * D, -1, 1);
  const auto k = random_vector<float>(r.rng(), size_t(kv_heads) * size_t(n_keys) * D, -1, 1);
  const auto v = random_vector<float>(r.rng(), k.size(), -1, 1);
  auto bq = r.upload(q), bk = r.upload(k), bv = r.upload(v);
  auto bout = r.poisoned<float>(q.size());
  const int gqa_factor = heads / kv_heads;
  const uint64_t head_stride = uint64_t(n_keys) * D, seq_stride = D;
  const float scale = 1.0f / std::sqrt(float(D));
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  const bool off = false;
  for (NS::UInteger index : {20, 21, 22, 23, 24, 25})  // mask, transposed q, causal, sinks
    constants->setConstantValue(&off, MTL::DataTypeBool, index);
  r.set_constants(constants.get());
  row.ran = r.dispatch_groups(
      row.instance,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bq.get(), 0, 0);
        e->setBuffer(bk.get(), 0, 1);
        e->setBuffer(bv.get(), 0, 2);
        e->setBuffer(bout.get(), 0, 3);
        e->setBytes(&gqa_factor, sizeof(gqa_factor), 4);
        e->setBytes(&n_keys, sizeof(n_keys), 5);
        e->setBytes(&head_stride, sizeof(head_stride), 6);
        e->setBytes(&seq_stride, sizeof(seq_stride), 7);
        e->setBytes(&head_stride, sizeof(head_stride), 8);
        e->setBytes(&seq_stride, sizeof(seq_stride), 9);
        e->setBytes(&scale, sizeof(scale), 10);
      },
      MTL::Size(size_t(heads), 1, 1), MTL::Size(1024, 1, 1), &row.note);
  r.set_constants(nullptr);
  double largest_score = 0;
  const auto want = attention(widened(q), widened(k), widened(v), heads, gqa_factor, n_keys, D,
                              double(scale), &largest_score);
  row.max_error = relative_error(widened(Runner::read<float>(bout, q.size())), want);
  // |v| <= 1. A score off by d moves every softmax weight by up to 2d relative, the output by
  // 2d: d is the float dot product's (D + 1) * 2^-24 times scale * sum |q_i k_i| (+1: the scaled
  // q). The online softmax rescales and accumulates over the keys (about 3 roundings a key), the
  // exponentials and the final division add a few more.
  row.tolerance = (2 * (D + 1) * largest_score + 3 * n_keys + 10) * 0x1p-24;
  return row;
}

// ------------------------------ quantized.metal (quantized.cpp), affine 4-bit, group size 64
// MLX's affine format: w [n, k] is stored as k / 8 uint32 a row, 8 values of 4 bits each, the
// first in the lowest bits; each group of 64 values along k has a scale s and a bias b, and the
// value is s * q + b. Scales and biases are [n, k / 64] in the input's type.
struct AffineWeights {
  std::vector<uint32_t> packed;
  std::vector<float> scales, biases;
  std::vector<double> values;  // s * q + b, [n, k]
};

AffineWeights affine_weights(std::mt19937& rng, int n, int k) {
  constexpr int group = 64;
  AffineWeights w;
  w.scales = random_vector<float>(rng, size_t(n) * size_t(k / group), 0.01, 0.1);
  w.biases = random_vector<float>(rng, w.scales.size(), -0.5, 0.5);
  w.packed.assign(size_t(n) * size_t(k / 8), 0);
  w.values.resize(size_t(n) * size_t(k));
  std::uniform_int_distribution<uint32_t> nibble(0, 15);
  for (size_t i = 0; i < w.values.size(); ++i) {
    const uint32_t q = nibble(rng);
    w.packed[i / 8] |= q << (4 * (i % 8));
    const size_t g = i / group;  // rows hold k / 64 whole groups
    w.values[i] = double(w.scales[g]) * double(q) + double(w.biases[g]);
  }
  return w;
}

// y [m, n] = x [m, k] times w [n, k] transposed, in double, and the sums of the terms' magnitudes
// with the scale and bias parts counted apart (the kernels add s * sum(x q) and b * sum(x)).
void affine_reference(const std::vector<float>& x, const AffineWeights& w, int m, int n, int k,
                      std::vector<double>* want, std::vector<double>* mag) {
  want->assign(size_t(m) * size_t(n), 0);
  mag->assign(want->size(), 0);
  for (size_t i = 0; i < size_t(m); ++i) {
    for (size_t o = 0; o < size_t(n); ++o) {
      for (size_t j = 0; j < size_t(k); ++j) {
        const double xv = double(x[i * size_t(k) + j]);
        const size_t at = o * size_t(k) + j, g = at / 64;
        (*want)[i * size_t(n) + o] += xv * w.values[at];
        (*mag)[i * size_t(n) + o] += std::abs(xv) * (std::abs(w.values[at] - double(w.biases[g])) +
                                                     std::abs(double(w.biases[g])));
      }
    }
  }
}

// The batch arguments of a non-batched product (add_strides_and_shapes is skipped): MLX leaves
// them unbound, Metal counting them inactive; metalsim asks for every argument, so placeholders
// (never read: `batched` is false) go in the 8 from buffer `first` on.
void bind_batch_placeholders(MTL::ComputeCommandEncoder* e, NS::UInteger first) {
  const int64_t zero = 0;
  for (NS::UInteger i = first; i < first + 8; ++i) e->setBytes(&zero, sizeof(zero), i);
}

// affine_qmv (dispatch_qmv for one vector, k not 64 or 128, n not a multiple of 8: not the quad
// or fast kernels): 2 simdgroups of 4 output rows each, grid (m, ceil(n / 8), 1) threadgroups.
// affine_qmm_t (m at least the qmv batch limit; k / 64 a prime above 512 / tiles, so that
// qmm_splitk finds no split and falls back to qmm): 2x2 simdgroups over 32x32 tiles.
Row affine_product(Runner& r, int m, int n, int k) {
  const bool matrix = m > 1;
  const std::string name = matrix ? std::string("affine_qmm_t_float_gs_64_b_4_alN_") +
                                        (n % 32 == 0 ? "true" : "false") + "_batch_0"
                                  : "affine_qmv_float_gs_64_b_4_batch_0";
  Row row = make_row("quantized.metal", name,
                     std::to_string(m) + "x" + std::to_string(k) + " times (" + std::to_string(n) +
                         "x" + std::to_string(k) + " 4-bit)^T");
  const auto w = affine_weights(r.rng(), n, k);
  const auto x = random_vector<float>(r.rng(), size_t(m) * size_t(k), -1, 1);
  auto bw = r.upload(w.packed), bs = r.upload(w.scales), bb = r.upload(w.biases);
  auto bx = r.upload(x);
  auto by = r.poisoned<float>(size_t(m) * size_t(n));
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(bw.get(), 0, 0);
        e->setBuffer(bs.get(), 0, 1);
        e->setBuffer(bb.get(), 0, 2);
        e->setBuffer(bx.get(), 0, 3);
        e->setBuffer(by.get(), 0, 4);
        e->setBytes(&k, sizeof(k), 5);
        e->setBytes(&n, sizeof(n), 6);
        if (matrix) e->setBytes(&m, sizeof(m), 7);
        bind_batch_placeholders(e, matrix ? 8 : 7);
      },
      matrix ? MTL::Size(size_t(n + 31) / 32, size_t(m + 31) / 32, 1)
             : MTL::Size(size_t(m), size_t(n + 7) / 8, 1),
      matrix ? MTL::Size(32, 2, 2) : MTL::Size(32, 2, 1), &row.note);
  std::vector<double> want, mag;
  affine_reference(x, w, m, n, k, &want, &mag);
  row.max_error = sum_error(Runner::read<float>(by, want.size()), want, mag);
  // k products, plus per group the scale's and the bias's product and the group's sum into the
  // total.
  row.tolerance = sum_bound(size_t(k) + 3 * size_t(k / 64));
  if (row.ran) row.note = "error relative to the sum of magnitudes";
  return row;
}

// ------------------------------ steel_gemm_fused.metal (matmul.cpp: steel_matmul_regular_axpby)
// The kernel's constant parameter block (steel/gemm/params.h: GEMMParams), field for field.
struct SteelGemmParams {
  int m, n, k;
  int lda, ldb, ldd;
  int tiles_n, tiles_m;
  int64_t batch_stride_a, batch_stride_b, batch_stride_d;
  int swizzle_log;
  int gemm_k_iterations_aligned;
  int batch_ndim;
};

// D [m, n] = A [m, k] times B [k, n], float32, neither transposed, one batch: the regular path
// (K below max(M, N) keeps it off split-K) with the tile of GEMM_TPARAM_MACRO for a device that is
// neither small ('g', 'p') nor large ('d'): bm 64, bn 64, bk 16, 2x2 simdgroups. Function
// constants: no batch, no C source, align_M/N/K from the shape; grid (tiles_n, tiles_m, 1).
Row steel_gemm(Runner& r, int m, int n, int k) {
  constexpr int bm = 64, bn = 64, bk = 16;
  const std::string name = "steel_gemm_fused_nn_float32_float32_bm64_bn64_bk16_wm2_wn2";
  Row row = make_row("steel_gemm_fused.metal", name,
                     std::to_string(m) + "x" + std::to_string(k) + " times " + std::to_string(k) +
                         "x" + std::to_string(n));
  const auto a = random_vector<float>(r.rng(), size_t(m) * size_t(k), -1, 1);
  const auto b = random_vector<float>(r.rng(), size_t(k) * size_t(n), -1, 1);
  auto ba = r.upload(a), bb = r.upload(b);
  auto bd = r.poisoned<float>(size_t(m) * size_t(n));
  const int tiles_n = (n + bn - 1) / bn, tiles_m = (m + bm - 1) / bm;
  const SteelGemmParams params{m, n,      k, k, n, n, tiles_n, tiles_m, 0, 0, int64_t(m) * n,
                               0, k / bk, 1};
  auto constants = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
  const bool off = false, align_m = m % bm == 0, align_n = n % bn == 0, align_k = k % bk == 0;
  constants->setConstantValue(&off, MTL::DataTypeBool, NS::UInteger(10));   // has_batch
  constants->setConstantValue(&off, MTL::DataTypeBool, NS::UInteger(100));  // use_out_source
  constants->setConstantValue(&off, MTL::DataTypeBool, NS::UInteger(110));  // do_axpby
  constants->setConstantValue(&align_m, MTL::DataTypeBool, NS::UInteger(200));
  constants->setConstantValue(&align_n, MTL::DataTypeBool, NS::UInteger(201));
  constants->setConstantValue(&align_k, MTL::DataTypeBool, NS::UInteger(202));
  r.set_constants(constants.get());
  row.ran = r.dispatch_groups(
      name,
      [&](MTL::ComputeCommandEncoder* e) {
        e->setBuffer(ba.get(), 0, 0);
        e->setBuffer(bb.get(), 0, 1);
        e->setBuffer(bd.get(), 0, 3);
        e->setBytes(&params, sizeof(params), 4);
      },
      MTL::Size(size_t(tiles_n), size_t(tiles_m), 1), MTL::Size(32, 2, 2), &row.note);
  r.set_constants(nullptr);
  std::vector<double> want(size_t(m) * size_t(n), 0), mag(want.size(), 0);
  for (size_t i = 0; i < size_t(m); ++i)
    for (size_t j = 0; j < size_t(k); ++j)
      for (size_t o = 0; o < size_t(n); ++o) {
        const double p = double(a[i * size_t(k) + j]) * double(b[j * size_t(n) + o]);
        want[i * size_t(n) + o] += p;
        mag[i * size_t(n) + o] += std::abs(p);
      }
  row.max_error = sum_error(Runner::read<float>(bd, want.size()), want, mag);
  row.tolerance = sum_bound(size_t(k));
  if (row.ran) row.note = "error relative to the sum of magnitudes";
  return row;
}

}  // namespace

std::vector<Row> mlx_gemv_only() {
  Runner r;
  return mlx_gemv_rows(r);
}

std::vector<Row> mlx_rows() {
  Runner r;
  std::vector<Row> rows;
  rows.push_back(rms_norm<float>(r, 5, 1001));
  rows.push_back(rms_norm<_Float16>(r, 3, 777));
  rows.push_back(rms_norm<float>(r, 2, 5003));
  // layer_norm_single_row dispatches 32 * ceil(ceil(axis / 8) / 32) threads; those past the row
  // (lid * 8 > axis) get n = axis - lid * 8 < 0 and write thread_x[n .. 7], below the array.
  // Sizes where every thread holds part of the row run; 1001 shows the kernel's bug.
  rows.push_back(layer_norm<float>(r, 5, 1021));
  rows.push_back(layer_norm<_Float16>(r, 3, 509));
  Row past_the_row = layer_norm<float>(r, 5, 1001);
  past_the_row.known_bug =
      "MLX writes thread_x[n..7] with n < 0 in threads past the row (lid 126, 127: n = -7, -15), "
      "a private-array underflow; here it corrupts the lane's stack";
  past_the_row.known_check = "kernel.fault";
  rows.push_back(past_the_row);
  rows.push_back(layer_norm<float>(r, 2, 7001));
  rows.push_back(arg_reduce(r, true, 7, 1003, 1));
  rows.push_back(arg_reduce(r, false, 301, 9, 0));
  rows.push_back(contiguous_scan(r, 3, 1000, true, false));
  rows.push_back(contiguous_scan(r, 2, 5001, false, false));
  rows.push_back(contiguous_scan(r, 2, 9001, true, true));
  rows.push_back(strided_scan(r, 77, 45, true));
  rows.push_back(strided_scan(r, 130, 7, false));
  // MLX clamps the last block of outputs to end at the output's end (gemv: out_row =
  // out_vec_size - TM; row_reduce_simple: out_idx = out_size - N_WRITES; qmv: min(N - results,
  // out_row)), so two simdgroups or threadgroups store the same outputs with the same values:
  // a write-write race by MSL's memory model, harmless on a GPU; the race check (METALSIM_CHECKS
  // with race) reports it as race.device.
  auto overlapping_last_block = [](Row row, const char* how) {
    row.known_bug = std::string("the last block is clamped to end at the output's end (") + how +
                    "): two writers store the same outputs with the same values, a race by "
                    "MSL's memory model that a GPU forgives";
    row.known_check = "race.device";
    return row;
  };
  rows.push_back(rope_single(r, false, 7, 64, 7));
  rows.push_back(rope_single(r, true, 5, 128, 3));
  rows.push_back(block_sort(r, false, 3, 1001));
  rows.push_back(block_sort(r, true, 4, 77));
  rows.push_back(rope_positions(r, false, 2, 5, 7, 64, {3, 11}));
  rows.push_back(rope_positions(r, true, 3, 3, 5, 32, {0, 17, 40}));
  rows.push_back(all_reduce(r, 3001));
  rows.push_back(all_reduce(r, 50001));
  rows.push_back(overlapping_last_block(row_reduce(r, 37, 1001), "out_idx = out_size - N_WRITES"));
  rows.push_back(row_reduce(r, 300, 45));
  rows.push_back(col_reduce(r, 203, 301));
  rows.push_back(col_reduce(r, 777, 45));
  rows.push_back(sdpa_vector<64>(r, 6, 2, 77));
  rows.push_back(sdpa_vector<128>(r, 3, 3, 45));
  rows.push_back(overlapping_last_block(affine_product(r, 1, 77, 320),
                                        "used_out_row = min(N - results_per_simdgroup, out_row)"));
  rows.push_back(affine_product(r, 37, 96, 64 * 89));
  // qmm_t's last N tile when N % 32 != 0: QuantizedBlockLoader::load_safe (reduction_dim 1) tests
  // the row index against the tile's column count (BK) where the rows left (num_outs) are meant,
  // so it dequantizes w, scales and biases rows past N; the outputs of those rows are not stored.
  Row partial_n = affine_product(r, 37, 100, 64 * 67);
  partial_n.known_bug =
      "QuantizedBlockLoader::load_safe (reduction_dim 1) compares the row index with BK instead of "
      "the rows left in the last N tile (num_outs = 4 of 32): it reads w, scales and biases rows "
      "100..127, past N (bounds.device at the end of the 26800-byte scales), a read beyond the "
      "buffer that a GPU does not catch";
  partial_n.known_check = "bounds.device";
  rows.push_back(partial_n);
  rows.push_back(steel_gemm(r, 67, 93, 51));
  // gemv.metal, every instance (mlx_gemv.cpp). MLX's gemv reaches threadgroup_barrier in only
  // some threads: gemv inside `if (thrN == 0)` of its threadgroup reduction (BN > 1), gemv_t
  // inside `if (out_col < out_vec_size)`. The others finish without it; as on Apple GPUs the
  // barrier waits only for the threads still running, and metalsim's sync check files
  // barrier.exited as a portability warning (the row's note): the command buffer completes and
  // the outputs are compared.
  for (Row& row : mlx_gemv_rows(r)) rows.push_back(std::move(row));
  return rows;
}

}  // namespace metalsim::yardstick
