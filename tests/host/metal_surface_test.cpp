// The metal-cpp calls MLX's Metal backend makes beyond dispatching (issue 26 item 2): the device
// and its profile, CopyAllDevices, command buffer handlers and status, queue variants,
// residency sets, compile options and the capture manager. Independent of MLX.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "metalsim/Metal.hpp"
#include "support/hand_kernel.h"

namespace metalsim::testing {
namespace {

// out[i] = 3 * i for the threads of the grid.
void triple_index(const BoundArgs& a, const LaneCursor& lane) {
  const uint32_t i = lane.value(Builtin::thread_position_in_grid).x;
  buffer<uint32_t>(a, 0)[i] = 3 * i;
}
HandKernel triple_kernel("mtl26_triple_index", {device_arg("out", 0, 4)}, &lane_loop<triple_index>);

// Writes through a threadgroup argument (so a dispatch sets its length).
void touch_threadgroup(const BoundArgs& a, const LaneCursor& lane) {
  threadgroup<uint32_t>(a, 0)[lane.value(Builtin::thread_index_in_threadgroup).x] = 1;
}
HandKernel threadgroup_kernel("mtl26_touch_threadgroup", {threadgroup_arg("scratch", 0, 4)},
                              &lane_loop<touch_threadgroup>);

NS::SharedPtr<MTL::ComputePipelineState> pipeline(MTL::Device* device, const char* name) {
  auto library = NS::TransferPtr(device->newDefaultLibrary());
  auto function = NS::TransferPtr(library->newFunction(name));
  NS::Error* error = nullptr;
  return NS::TransferPtr(device->newComputePipelineState(function.get(), &error));
}

// ---------------------------------------------------------------- the device and its profile
// A null object of type T, as metal-cpp code holds one (an empty array's buffer): laundered so
// that the compiler does not see the null at the call.
template <class T>
T* null_object() {
  T* p = nullptr;
  asm("" : "+r"(p));
  return p;
}

// Objective-C's messages to nil return 0 and do nothing; metal-cpp code relies on that (MLX asks
// an empty array's null buffer for its length).
TEST(MessagesToNil, ReturnZeroAndDoNothing) {
  MTL::Buffer* buffer = null_object<MTL::Buffer>();
  EXPECT_EQ(buffer->length(), 0u);
  EXPECT_EQ(buffer->contents(), nullptr);
  EXPECT_EQ(buffer->retain(), nullptr);
  EXPECT_EQ(buffer->autorelease(), nullptr);
  buffer->release();
  NS::Object* object = null_object<NS::Object>();
  EXPECT_EQ(object->retain(), nullptr);
  EXPECT_EQ(object->retainCount(), 0u);
  EXPECT_EQ(object->autorelease(), nullptr);
  object->release();
  // A real buffer still answers.
  NS::SharedPtr<MTL::Device> device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  NS::SharedPtr<MTL::Buffer> real =
      NS::TransferPtr(device->newBuffer(24, MTL::ResourceStorageModeShared));
  EXPECT_EQ(real->length(), 24u);
  EXPECT_NE(real->contents(), nullptr);
}

TEST(DeviceProfile, CopyAllDevicesGivesOneDeviceOfTheProfile) {
  NS::Array* devices = MTL::CopyAllDevices();
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->count(), 1u);
  auto* device = static_cast<MTL::Device*>(devices->object(0));
  auto system = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  const MTL::DeviceProfile profile;
  for (MTL::Device* d : {device, system.get()}) {
    EXPECT_STREQ(d->name()->utf8String(), "Apple M1 (metalsim)");
    EXPECT_STREQ(d->architecture()->name()->utf8String(), "applegpu_g13g");
    EXPECT_EQ(d->registryID(), profile.registryID);
    EXPECT_EQ(d->recommendedMaxWorkingSetSize(), 11453251584ull);
    EXPECT_EQ(d->maxBufferLength(), NS::UInteger(8) << 30);
    EXPECT_EQ(d->maxThreadgroupMemoryLength(), 32768u);
    EXPECT_EQ(d->maxThreadsPerThreadgroup().width, 1024u);
    EXPECT_TRUE(d->hasUnifiedMemory());
    EXPECT_EQ(d->location(), MTL::DeviceLocationBuiltIn);
  }
  EXPECT_EQ(device->architecture(), system->architecture());  // one object per architecture
  devices->release();
}

TEST(DeviceProfile, GPUFamiliesOfAnApple7GPU) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  for (MTL::GPUFamily yes :
       {MTL::GPUFamilyApple1, MTL::GPUFamilyApple4, MTL::GPUFamilyApple7, MTL::GPUFamilyMac1,
        MTL::GPUFamilyMac2, MTL::GPUFamilyCommon1, MTL::GPUFamilyCommon3, MTL::GPUFamilyMetal3})
    EXPECT_TRUE(device->supportsFamily(yes)) << yes;
  for (MTL::GPUFamily no : {MTL::GPUFamilyApple8, MTL::GPUFamilyApple9, MTL::GPUFamilyApple10,
                            MTL::GPUFamilyMacCatalyst1, MTL::GPUFamilyMetal4, MTL::GPUFamily(0)})
    EXPECT_FALSE(device->supportsFamily(no)) << no;
}

// What a device answers and what its dispatches are held to come from one profile.
TEST(DeviceProfile, AnotherProfileIsAnsweredAndEnforced) {
  MTL::DeviceProfile small;
  small.maxThreadgroupMemoryLength = 1024;
  small.maxBufferLength = 4096;
  small.appleFamily = 8;
  small.architecture = "applegpu_g14g";
  auto* device = new MTL::Device(small);
  EXPECT_EQ(device->maxThreadgroupMemoryLength(), 1024u);
  EXPECT_TRUE(device->supportsFamily(MTL::GPUFamilyApple8));
  EXPECT_STREQ(device->architecture()->name()->utf8String(), "applegpu_g14g");
  EXPECT_EQ(device->maxBufferLength(), 4096u);
  auto fits = NS::TransferPtr(device->newBuffer(4096, MTL::ResourceStorageModeShared));
  EXPECT_NE(fits, nullptr);
  EXPECT_EQ(device->newBuffer(4097, MTL::ResourceStorageModeShared), nullptr);
  std::vector<char> bytes(8192);
  EXPECT_EQ(device->newBuffer(bytes.data(), 8192, MTL::ResourceStorageModeShared), nullptr);

  auto pso = pipeline(device, "mtl26_touch_threadgroup");
  ASSERT_TRUE(pso);
  auto queue = NS::TransferPtr(device->newCommandQueue());
  for (NS::UInteger length : {NS::UInteger(1024), NS::UInteger(2048)}) {
    MTL::CommandBuffer* cb = queue->commandBuffer();
    MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
    enc->setComputePipelineState(pso.get());
    enc->setThreadgroupMemoryLength(length, 0);
    enc->dispatchThreadgroups({1, 1, 1}, {32, 1, 1});
    enc->endEncoding();
    cb->commit();
    EXPECT_EQ(cb->status(),
              length <= 1024 ? MTL::CommandBufferStatusCompleted : MTL::CommandBufferStatusError)
        << length;
  }
  device->release();
}

TEST(DeviceProfile, BuffersAndTexturesAreAllocations) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  const NS::UInteger page = NS::UInteger(sysconf(_SC_PAGESIZE));
  auto small = NS::TransferPtr(device->newBuffer(100, MTL::ResourceStorageModeShared));
  auto exact = NS::TransferPtr(device->newBuffer(2 * page, MTL::ResourceStorageModeShared));
  const MTL::Allocation* a = small.get();
  EXPECT_EQ(a->allocatedSize(), page);
  EXPECT_EQ(exact->allocatedSize(), 2 * page);
  auto* d = MTL::TextureDescriptor::texture2DDescriptor(MTL::PixelFormatRGBA8Unorm, 64, 64, false);
  auto texture = NS::TransferPtr(device->newTexture(d));
  ASSERT_TRUE(texture);
  EXPECT_EQ(texture->allocatedSize(), (64 * 64 * 4 + page - 1) / page * page);
}

// ---------------------------------------------------------------- command buffers
struct Seen {
  std::string what;
  MTL::CommandBuffer* buffer;
  MTL::CommandBufferStatus status;
  uint32_t out_last;  // out[255] when called
  bool has_error;
};

TEST(CommandBufferHandlers, RunOnceInOrderAfterTheResultsAreIn) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto pso = pipeline(device.get(), "mtl26_triple_index");
  auto out = NS::TransferPtr(device->newBuffer(256 * 4, MTL::ResourceStorageModeShared));
  const auto* got = static_cast<const uint32_t*>(out->contents());
  auto queue = NS::TransferPtr(device->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  std::vector<Seen> seen;
  auto record = [&](const char* what) {
    return [&seen, what, got](MTL::CommandBuffer* b) {
      seen.push_back({what, b, b->status(), got[255], b->error() != nullptr});
    };
  };
  cb->addCompletedHandler(record("completed 1"));
  cb->addScheduledHandler(record("scheduled 1"));
  cb->addCompletedHandler(record("completed 2"));
  cb->addScheduledHandler(record("scheduled 2"));
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusNotEnqueued);
  cb->enqueue();
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusEnqueued);
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso.get());
  enc->setBuffer(out.get(), 0, 0);
  enc->dispatchThreads({256, 1, 1}, {64, 1, 1});
  enc->endEncoding();
  EXPECT_TRUE(seen.empty());
  cb->commit();
  cb->waitUntilCompleted();
  ASSERT_EQ(seen.size(), 4u);
  const char* order[] = {"scheduled 1", "scheduled 2", "completed 1", "completed 2"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(seen[i].what, order[i]);
    EXPECT_EQ(seen[i].buffer, cb);
    EXPECT_FALSE(seen[i].has_error);
  }
  EXPECT_EQ(seen[0].status, MTL::CommandBufferStatusScheduled);
  EXPECT_EQ(seen[0].out_last, 0u);  // scheduled: before the dispatch ran
  EXPECT_EQ(seen[2].status, MTL::CommandBufferStatusCompleted);
  EXPECT_EQ(seen[2].out_last, 3u * 255);  // completed: the results are in the buffer
  for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(got[i], 3 * i);
  EXPECT_GT(cb->GPUStartTime(), 0.0);
  EXPECT_LE(cb->GPUStartTime(), cb->GPUEndTime());

  // Never again: not on waiting, not on a second (forbidden) commit; one added now is not run.
  cb->addCompletedHandler(record("late"));
  cb->waitUntilCompleted();
  cb->commit();
  EXPECT_EQ(seen.size(), 4u);
}

TEST(CommandBufferHandlers, RunForAFailedBufferWithItsError) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto pso = pipeline(device.get(), "mtl26_triple_index");
  auto queue = NS::TransferPtr(device->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  int scheduled = 0, completed = 0;
  MTL::CommandBufferStatus status_seen = MTL::CommandBufferStatusNotEnqueued;
  std::string domain_seen;
  cb->addScheduledHandler([&](MTL::CommandBuffer*) { ++scheduled; });
  cb->addCompletedHandler([&](MTL::CommandBuffer* b) {
    ++completed;
    status_seen = b->status();
    if (b->error() != nullptr) domain_seen = b->error()->domain()->str();
  });
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso.get());  // [[buffer(0)]] left unbound: validation fails
  enc->dispatchThreads({64, 1, 1}, {64, 1, 1});
  enc->endEncoding();
  cb->commit();
  EXPECT_EQ(scheduled, 1);
  EXPECT_EQ(completed, 1);
  EXPECT_EQ(status_seen, MTL::CommandBufferStatusError);
  EXPECT_EQ(domain_seen, "MTLCommandBufferErrorDomain");
  EXPECT_EQ(cb->error()->code(), MTL::CommandBufferErrorInternal);
}

TEST(CommandBufferHandlers, AreReleasedOnceCalled) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto queue = NS::TransferPtr(device->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  auto captured = NS::TransferPtr(NS::String::alloc()->init("held", NS::UTF8StringEncoding));
  cb->addCompletedHandler([captured](MTL::CommandBuffer*) {});
  EXPECT_EQ(captured->retainCount(), 2u);
  cb->commit();  // an empty buffer completes
  EXPECT_EQ(cb->status(), MTL::CommandBufferStatusCompleted);
  EXPECT_EQ(captured->retainCount(), 1u);
}

TEST(CommandQueue, VariantsMLXUses) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto queue = NS::TransferPtr(device->newCommandQueue(5));
  EXPECT_EQ(queue->maxCommandBufferCount(), 5u);
  EXPECT_EQ(NS::TransferPtr(device->newCommandQueue())->maxCommandBufferCount(), 64u);
  queue->setLabel(MTLSTR("Stream 0"));
  EXPECT_STREQ(queue->label()->utf8String(), "Stream 0");
  MTL::CommandBuffer* retained = queue->commandBuffer();
  MTL::CommandBuffer* unretained = queue->commandBufferWithUnretainedReferences();
  EXPECT_TRUE(retained->retainedReferences());
  EXPECT_FALSE(unretained->retainedReferences());
  EXPECT_EQ(unretained->commandQueue(), queue.get());
  unretained->setLabel(MTLSTR("softmax"));
  EXPECT_STREQ(unretained->label()->utf8String(), "softmax");
  auto* descriptor = MTL::CommandBufferDescriptor::alloc()->init();
  descriptor->setRetainedReferences(false);
  EXPECT_FALSE(queue->commandBuffer(descriptor)->retainedReferences());
  descriptor->release();
}

// With a pool open, the pool owns a new command buffer (as in Metal): MLX retains the one it
// keeps, and the rest go when the pool drains.
TEST(CommandQueue, CommandBuffersAreAutoreleasedIntoTheOpenPool) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto queue = NS::TransferPtr(device->newCommandQueue());
  NS::SharedPtr<MTL::CommandBuffer> kept;
  {
    auto pool = NS::TransferPtr(NS::AutoreleasePool::alloc()->init());
    kept = NS::RetainPtr(queue->commandBufferWithUnretainedReferences());
    EXPECT_EQ(kept->retainCount(), 2u);
    EXPECT_EQ(pool->pendingCount(), 1u);
  }
  EXPECT_EQ(kept->retainCount(), 1u);
  kept->commit();
  EXPECT_EQ(kept->status(), MTL::CommandBufferStatusCompleted);
}

// ---------------------------------------------------------------- residency sets
TEST(ResidencySet, KeepsItsBookkeeping) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto* descriptor = MTL::ResidencySetDescriptor::alloc()->init();
  descriptor->setLabel(MTLSTR("mlx"));
  descriptor->setInitialCapacity(8);
  NS::Error* error = reinterpret_cast<NS::Error*>(1);
  auto set = NS::TransferPtr(device->newResidencySet(descriptor, &error));
  descriptor->release();
  ASSERT_TRUE(set);
  EXPECT_EQ(error, nullptr);
  EXPECT_STREQ(set->label()->utf8String(), "mlx");
  EXPECT_EQ(set->device(), device.get());
  set->requestResidency();

  auto a = NS::TransferPtr(device->newBuffer(100, MTL::ResourceStorageModeShared));
  auto b = NS::TransferPtr(device->newBuffer(3 * 4096 + 1, MTL::ResourceStorageModeShared));
  set->addAllocation(a.get());
  set->addAllocation(a.get());  // once only
  set->addAllocation(b.get());
  EXPECT_EQ(set->allocationCount(), 2u);
  EXPECT_TRUE(set->containsAllocation(b.get()));
  EXPECT_EQ(a->retainCount(), 2u);      // the set holds it
  EXPECT_EQ(set->allocatedSize(), 0u);  // nothing committed yet
  set->commit();
  EXPECT_EQ(set->allocatedSize(), a->allocatedSize() + b->allocatedSize());
  set->removeAllocation(a.get());
  EXPECT_FALSE(set->containsAllocation(a.get()));
  EXPECT_EQ(set->allocationCount(), 1u);
  EXPECT_EQ(set->allocatedSize(), a->allocatedSize() + b->allocatedSize());  // until commit
  set->commit();
  EXPECT_EQ(set->allocatedSize(), b->allocatedSize());
  EXPECT_EQ(a->retainCount(), 1u);
  NS::Array* all = set->allAllocations();
  ASSERT_EQ(all->count(), 1u);
  EXPECT_EQ(all->object<MTL::Buffer>(0), b.get());
  set->removeAllAllocations();
  set->commit();
  EXPECT_EQ(set->allocatedSize(), 0u);
  set->endResidency();
  EXPECT_EQ(set->commitCount(), 3u);
  EXPECT_EQ(set->residencyRequestCount(), 1u);
  EXPECT_EQ(set->residencyEndCount(), 1u);

  // Queues keep the sets added to them (MLX's addResidencySets(data, size)).
  auto queue = NS::TransferPtr(device->newCommandQueue());
  std::vector<const MTL::ResidencySet*> sets = {set.get(), set.get()};
  queue->addResidencySets(sets.data(), sets.size());
  ASSERT_EQ(queue->residencySets().size(), 1u);
  queue->removeResidencySet(set.get());
  EXPECT_TRUE(queue->residencySets().empty());
  queue->commandBuffer()->useResidencySet(set.get());
}

// metal-cpp's spellings MLX relies on: options combined with | are a ResourceOptions (an
// integer, as metal-cpp's), a pipeline is made from a const Function*.
TEST(DeviceProfile, MetalCppSpellings) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  constexpr size_t options = MTL::ResourceStorageModeShared | MTL::ResourceCPUCacheModeDefaultCache;
  auto buffer = NS::TransferPtr(device->newBuffer(64, options));
  ASSERT_TRUE(buffer);
  EXPECT_EQ(buffer->length(), 64u);
  auto library = NS::TransferPtr(device->newDefaultLibrary());
  auto function = NS::TransferPtr(library->newFunction("mtl26_triple_index"));
  const MTL::Function* constant = function.get();
  NS::Error* error = nullptr;
  auto pso = NS::TransferPtr(device->newComputePipelineState(constant, &error));
  ASSERT_TRUE(pso);
  EXPECT_EQ(pso->maxTotalThreadsPerThreadgroup(), 1024u);
}

// A buffer keeps the storage mode its options asked for (MLX asserts a buffer is not private
// before reading contents()); every mode is host-readable memory on metalsim.
TEST(DeviceProfile, BuffersKeepTheirStorageMode) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  const std::pair<MTL::ResourceOptions, MTL::StorageMode> cases[] = {
      {MTL::ResourceStorageModeShared, MTL::StorageModeShared},
      {MTL::ResourceStorageModeShared | MTL::ResourceHazardTrackingModeUntracked,
       MTL::StorageModeShared},
      {MTL::ResourceStorageModeManaged, MTL::StorageModeManaged},
      {MTL::ResourceStorageModePrivate, MTL::StorageModePrivate},
  };
  for (const auto& [options, mode] : cases) {
    auto buffer = NS::TransferPtr(device->newBuffer(64, options));
    ASSERT_TRUE(buffer);
    EXPECT_EQ(buffer->storageMode(), mode) << options;
  }
  std::vector<float> mine(16);
  auto no_copy =
      NS::TransferPtr(device->newBuffer(mine.data(), 64, MTL::ResourceStorageModeShared, nullptr));
  ASSERT_TRUE(no_copy);
  EXPECT_EQ(no_copy->storageMode(), MTL::StorageModeShared);
  auto* heap_descriptor = MTL::HeapDescriptor::alloc()->init();
  heap_descriptor->setSize(1 << 16);
  auto heap = NS::TransferPtr(device->newHeap(heap_descriptor));
  heap_descriptor->release();
  ASSERT_TRUE(heap);
  auto from_heap = NS::TransferPtr(heap->newBuffer(64, MTL::ResourceStorageModeShared));
  ASSERT_TRUE(from_heap);
  EXPECT_EQ(from_heap->storageMode(), MTL::StorageModeShared);
}

// MLX loads its metallib by path (newLibraryWithFile): a missing file is an error it can report.
TEST(DeviceLibrary, ALibraryByPathThatIsMissingIsAnError) {
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  NS::Error* error = nullptr;
  MTL::Library* library = device->newLibrary(MTLSTR("/nonexistent/mlx.metallib"), &error);
  EXPECT_EQ(library, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::LibraryErrorFileNotFound);
  EXPECT_NE(error->localizedDescription()->str().find("/nonexistent/mlx.metallib"),
            std::string::npos);
  pool->release();
}

// ---------------------------------------------------------------- compile options, capture
TEST(CompileOptions, LanguageVersionAndLoggingAreKept) {
  auto* options = MTL::CompileOptions::alloc()->init();
  EXPECT_EQ(options->languageVersion(), MTL::LanguageVersion3_2);
  EXPECT_EQ(MTL::LanguageVersion3_2, (3u << 16) + 2);
  options->setLanguageVersion(static_cast<MTL::LanguageVersion>((4 << 16) + 1));
  EXPECT_EQ(options->languageVersion(), NS::UInteger((4 << 16) + 1));
  EXPECT_FALSE(options->enableLogging());
  options->setEnableLogging(true);
  EXPECT_TRUE(options->enableLogging());
  options->setMathMode(MTL::MathModeRelaxed);
  EXPECT_EQ(options->mathMode(), MTL::MathModeRelaxed);
  options->release();
}

TEST(CaptureManager, NeverStartsACapture) {
  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  MTL::CaptureDescriptor* descriptor = MTL::CaptureDescriptor::alloc()->init()->autorelease();
  descriptor->setCaptureObject(device.get());
  descriptor->setDestination(MTL::CaptureDestinationGPUTraceDocument);
  descriptor->setOutputURL(NS::URL::fileURLWithPath(MTLSTR("/tmp/x.gputrace")));
  MTL::CaptureManager* manager = MTL::CaptureManager::sharedCaptureManager();
  EXPECT_EQ(manager, MTL::CaptureManager::sharedCaptureManager());
  EXPECT_FALSE(manager->supportsDestination(MTL::CaptureDestinationGPUTraceDocument));
  NS::Error* error = nullptr;
  EXPECT_FALSE(manager->startCapture(descriptor, &error));
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code(), MTL::CaptureErrorNotSupported);
  EXPECT_STREQ(error->domain()->utf8String(), "MTLCaptureErrorDomain");
  EXPECT_FALSE(manager->isCapturing());
  manager->stopCapture();
  pool->release();
}

}  // namespace
}  // namespace metalsim::testing
