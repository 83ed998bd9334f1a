#include "metalsim/Metal/MTLHeap.hpp"

#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLDevice.hpp"

namespace MTL {
namespace {

// Metal's heaps place buffers at this alignment (Apple GPUs: 16 KiB pages).
constexpr NS::UInteger kHeapAlignment = 16 * 1024;

NS::UInteger aligned(NS::UInteger n) {
  return (n + kHeapAlignment - 1) / kHeapAlignment * kHeapAlignment;
}

}  // namespace

Heap::Heap(Device* device, const HeapDescriptor& descriptor)
    : device_(device),
      size_(aligned(descriptor.size())),
      hazard_tracking_(descriptor.hazardTrackingMode() == HazardTrackingModeTracked
                           ? HazardTrackingModeTracked
                           : HazardTrackingModeUntracked),
      type_(descriptor.type()) {}

NS::UInteger Heap::maxAvailableSize(NS::UInteger) const { return size_ - used_; }

void Heap::release_bytes(NS::UInteger bytes) { used_ -= bytes; }

Buffer* Heap::made(Buffer* buffer, NS::UInteger bytes, ResourceOptions options) {
  buffer->hazard_tracking_ = hazardTrackingModeOf(options, hazard_tracking_);
  buffer->storage_mode_ = storageModeOf(options);
  buffer->heap_ = this;
  buffer->heap_bytes_ = bytes;
  used_ += bytes;
  retain();  // a heap's buffer keeps its heap
  return buffer;
}

Buffer* Heap::newBuffer(NS::UInteger length, ResourceOptions options) {
  const NS::UInteger bytes = aligned(length == 0 ? 1 : length);
  if (type_ == HeapTypePlacement || bytes > size_ - used_) return nullptr;
  return made(new Buffer(length), bytes, options);
}

// metalsim's buffers each have memory of their own, so placements never alias: a buffer placed
// over another's bytes does not share them (docs/host_api.md#heaps).
Buffer* Heap::newBuffer(NS::UInteger length, ResourceOptions options, NS::UInteger offset) {
  if (type_ != HeapTypePlacement || offset % kHeapAlignment != 0 || offset > size_ ||
      length > size_ - offset)
    return nullptr;
  return made(new Buffer(length), 0, options);
}

Heap* Device::newHeap(const HeapDescriptor* descriptor) {
  if (descriptor == nullptr || descriptor->size() == 0) return nullptr;
  return new Heap(this, *descriptor);
}

SizeAndAlign Device::heapBufferSizeAndAlign(NS::UInteger length, ResourceOptions) const {
  return {aligned(length == 0 ? 1 : length), kHeapAlignment};
}

}  // namespace MTL
