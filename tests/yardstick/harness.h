#pragma once
// The yardstick drivers' shared part (scripts/yardstick.sh, docs/yardstick.md): third-party
// kernels dispatched through metalsim's host API the way their own host code dispatches them, and
// one table row per instance run: file, instance, whether it ran, the largest error against the
// reference written here, and whether that error is within the instance's tolerance.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "metalsim/Metal.hpp"

namespace metalsim::yardstick {

struct Row {
  std::string file;
  std::string instance;
  std::string shape;  // what was run, in words ("5 rows of 1001")
  bool ran = false;   // the command buffer completed
  double max_error = 0;
  double tolerance = 0;
  std::string note;  // why it did not run, or what the error measures
  // A failure this row expects because the kernel itself is wrong (what metalsim found, in words):
  // reported as such and not counted as a failure of metalsim.
  std::string known_bug;
  // The check id the known bug must be reported as ("bounds.device"): a row that fails for any
  // other reason is a failure.
  std::string known_check;
  bool passed() const { return ran && max_error <= tolerance && !std::isnan(max_error); }
};

// Largest |got - want| / max(1, |want|) over every element; NaN in `got` where `want` is finite
// (a poisoned element left unwritten) counts as infinite.
inline double relative_error(const std::vector<double>& got, const std::vector<double>& want) {
  double e = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i]));
    if (std::isnan(d)) return double(INFINITY);
    e = std::max(e, d);
  }
  return e;
}

class Runner {
 public:
  Runner()
      : device_(NS::TransferPtr(MTL::CreateSystemDefaultDevice())),
        queue_(NS::TransferPtr(device_->newCommandQueue())),
        library_(NS::TransferPtr(device_->newDefaultLibrary())),
        rng_(20260825u) {}

  std::mt19937& rng() { return rng_; }

  template <class T>
  NS::SharedPtr<MTL::Buffer> upload(const std::vector<T>& v) {
    return NS::TransferPtr(
        device_->newBuffer(v.data(), v.size() * sizeof(T), MTL::ResourceStorageModeShared));
  }
  // An output buffer of n elements, every byte 0xff (NaN for floating-point types).
  template <class T>
  NS::SharedPtr<MTL::Buffer> poisoned(size_t n) {
    std::vector<uint8_t> bytes(n * sizeof(T), 0xff);
    return NS::TransferPtr(
        device_->newBuffer(bytes.data(), bytes.size(), MTL::ResourceStorageModeShared));
  }
  template <class T>
  static std::vector<T> read(const NS::SharedPtr<MTL::Buffer>& b, size_t n) {
    const T* p = static_cast<const T*>(b->contents());
    return std::vector<T>(p, p + n);
  }

  // Pipeline state of a kernel by its host name, with the function constants of `constants` when
  // given; nullptr (and `error` set) when it is missing.
  NS::SharedPtr<MTL::ComputePipelineState> pipeline(
      const std::string& name, std::string* error,
      MTL::FunctionConstantValues* constants = nullptr);
  // Function constants to dispatch with (MLX sets them per pipeline); nullptr: none.
  void set_constants(MTL::FunctionConstantValues* constants) { constants_ = constants; }
  // The library pipelines come from: the program's kernels (newDefaultLibrary) unless another
  // is given; returns the one it replaces.
  NS::SharedPtr<MTL::Library> use_library(NS::SharedPtr<MTL::Library> library) {
    std::swap(library, library_);
    return library;
  }
  // A .metal file compiled at run time (Device::newLibrary(url)) with `include_dirs`; each
  // function is compiled when first asked for, specialised with its function constants.
  NS::SharedPtr<MTL::Library> compile_file(const std::string& path,
                                           const std::vector<std::string>& include_dirs,
                                           std::string* error);

  // dispatchThreads(grid, group) as MLX's dispatch_threads; false (and `error` set) when the
  // command buffer did not complete.
  bool dispatch_threads(const std::string& name,
                        const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
                        MTL::Size grid, MTL::Size group, std::string* error);
  // dispatchThreadgroups(groups, group), as ggml dispatches.
  bool dispatch_groups(const std::string& name,
                       const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
                       MTL::Size groups, MTL::Size group, std::string* error,
                       size_t threadgroup_bytes = 0);

 private:
  bool run(const std::string& name, const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
           MTL::Size a, MTL::Size group, bool threads, size_t threadgroup_bytes,
           std::string* error);

  NS::SharedPtr<MTL::Device> device_;
  NS::SharedPtr<MTL::CommandQueue> queue_;
  NS::SharedPtr<MTL::Library> library_;
  std::mt19937 rng_;
  MTL::FunctionConstantValues* constants_ = nullptr;
};

template <class T>
std::vector<T> random_vector(std::mt19937& rng, size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = T(d(rng));
  return v;
}

template <class T>
std::vector<double> widened(const std::vector<T>& v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = double(v[i]);
  return out;
}

// gemv.metal's instances, every one (mlx_gemv.cpp).
std::vector<Row> mlx_gemv_rows(Runner& r);

// Prints the rows as the script's table; returns the number of rows that did not pass.
int print_table(const std::vector<Row>& rows);

}  // namespace metalsim::yardstick
