// The example's host program: runs matmul.metal's kernel twice, compiled into the program at
// build time (metalsim_add_metal_library) and compiled from the .metal file at run time
// (newLibrary), and checks both against a double-precision reference on random inputs.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "metalsim/Metal.hpp"

namespace {

struct MatmulShape {  // as matmul.metal declares it
  uint32_t m, n, k;
};

std::vector<float> random_matrix(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

// C = A * B on the GPU stand-in; C starts as NaN, so an element never written fails the check.
std::vector<float> run_matmul(MTL::Device* device, MTL::Function* function, const MatmulShape& s,
                              const std::vector<float>& a, const std::vector<float>& b) {
  NS::Error* error = nullptr;
  NS::SharedPtr<MTL::ComputePipelineState> pipeline =
      NS::TransferPtr(device->newComputePipelineState(function, &error));
  std::vector<float> nan(size_t{s.m} * s.n, std::numeric_limits<float>::quiet_NaN());
  auto a_buf =
      NS::TransferPtr(device->newBuffer(a.data(), a.size() * 4, MTL::ResourceStorageModeShared));
  auto b_buf =
      NS::TransferPtr(device->newBuffer(b.data(), b.size() * 4, MTL::ResourceStorageModeShared));
  auto c_buf = NS::TransferPtr(
      device->newBuffer(nan.data(), nan.size() * 4, MTL::ResourceStorageModeShared));
  NS::SharedPtr<MTL::CommandQueue> queue = NS::TransferPtr(device->newCommandQueue());
  MTL::CommandBuffer* commands = queue->commandBuffer();
  MTL::ComputeCommandEncoder* encoder = commands->computeCommandEncoder();
  encoder->setComputePipelineState(pipeline.get());
  encoder->setBuffer(a_buf.get(), 0, 0);
  encoder->setBuffer(b_buf.get(), 0, 1);
  encoder->setBuffer(c_buf.get(), 0, 2);
  encoder->setBytes(&s, sizeof s, 3);
  // Whole 16 x 16 threadgroups (the kernel loads its tiles with every thread of one): with
  // dispatchThreads the threadgroups at the edges would be partial and leave tiles half loaded.
  encoder->dispatchThreadgroups(MTL::Size((s.n + 15) / 16, (s.m + 15) / 16, 1),
                                MTL::Size(16, 16, 1));
  encoder->endEncoding();
  commands->commit();
  commands->waitUntilCompleted();
  if (commands->status() != MTL::CommandBufferStatusCompleted)
    std::fprintf(stderr, "the command buffer failed: %s\n",
                 commands->error() ? commands->error()->localizedDescription()->utf8String() : "?");
  const float* c = static_cast<const float*>(c_buf->contents());
  return std::vector<float>(c, c + nan.size());
}

// Each element within a few float roundings of the double-precision product.
bool matches_reference(const MatmulShape& s, const std::vector<float>& a,
                       const std::vector<float>& b, const std::vector<float>& c) {
  for (uint32_t i = 0; i < s.m; ++i)
    for (uint32_t j = 0; j < s.n; ++j) {
      double exact = 0, magnitude = 0;
      for (uint32_t k = 0; k < s.k; ++k) {
        exact += double(a[i * s.k + k]) * b[k * s.n + j];
        magnitude += std::fabs(double(a[i * s.k + k]) * b[k * s.n + j]);
      }
      const double error = std::fabs(c[i * s.n + j] - exact);
      if (!(error <= 1e-6 * s.k * magnitude + 1e-30)) {  // NaN fails too
        std::fprintf(stderr, "C[%u][%u] = %.9g, expected %.9g\n", i, j, c[i * s.n + j], exact);
        return false;
      }
    }
  return true;
}

}  // namespace

int main() {
  NS::SharedPtr<MTL::Device> device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  const MatmulShape shape{45, 37, 70};  // no side a multiple of the 16 x 16 tile
  std::mt19937 rng(2024);
  const std::vector<float> a = random_matrix(size_t{shape.m} * shape.k, rng);
  const std::vector<float> b = random_matrix(size_t{shape.k} * shape.n, rng);

  // 1. Compiled into the program at build time.
  NS::SharedPtr<MTL::Library> linked = NS::TransferPtr(device->newDefaultLibrary());
  NS::SharedPtr<MTL::Function> f1 = NS::TransferPtr(linked->newFunction("matmul_tiled"));
  const bool ok1 =
      f1 && matches_reference(shape, a, b, run_matmul(device.get(), f1.get(), shape, a, b));
  std::printf("build-time kernel:   %s\n", ok1 ? "matches the reference" : "WRONG");

  // 2. Compiled from the .metal file at run time, as newLibraryWithSource would.
  const auto start = std::chrono::steady_clock::now();
  NS::Error* error = nullptr;
  NS::SharedPtr<MTL::Library> compiled =
      NS::TransferPtr(device->newLibrary(NS::URL::fileURLWithPath(MTLSTR(MATMUL_METAL)), &error));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!compiled) {
    std::fprintf(stderr, "%s\n", error->localizedDescription()->utf8String());
    return 1;
  }
  NS::SharedPtr<MTL::Function> f2 = NS::TransferPtr(compiled->newFunction("matmul_tiled"));
  const bool ok2 =
      f2 && matches_reference(shape, a, b, run_matmul(device.get(), f2.get(), shape, a, b));
  std::printf("runtime-compiled:    %s (newLibrary took %.0f ms)\n",
              ok2 ? "matches the reference" : "WRONG", ms);
  return ok1 && ok2 ? 0 : 1;
}
