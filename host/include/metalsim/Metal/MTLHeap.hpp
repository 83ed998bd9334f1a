#pragma once
// MTL::Heap: memory that buffers are made from (newBuffer), as in metal-cpp. Each buffer of a
// heap is memory of its own with guard pages, like Device::newBuffer's; the heap keeps the
// accounting Metal's has (size, usedSize, a nullptr when a buffer no longer fits) and the hazard
// tracking mode its buffers get: untracked unless the descriptor asks for tracked, as on Metal.
// Untracked memory is what command buffers of two queues can race on (MTLResource.hpp).
#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Metal/MTLAllocation.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class Buffer;
class Device;

enum HeapType : NS::Integer {
  HeapTypeAutomatic = 0,
  HeapTypePlacement = 1,
};

struct SizeAndAlign {
  NS::UInteger size = 0;
  NS::UInteger align = 0;
};

class HeapDescriptor : public NS::Referencing<HeapDescriptor> {
 public:
  static HeapDescriptor* alloc() { return new HeapDescriptor; }
  HeapDescriptor* init() { return this; }
  NS::UInteger size() const { return size_; }
  void setSize(NS::UInteger size) { size_ = size; }
  NS::UInteger storageMode() const { return storage_mode_; }
  void setStorageMode(NS::UInteger mode) { storage_mode_ = mode; }
  HazardTrackingMode hazardTrackingMode() const { return hazard_tracking_; }
  void setHazardTrackingMode(HazardTrackingMode mode) { hazard_tracking_ = mode; }
  HeapType type() const { return type_; }
  void setType(HeapType type) { type_ = type; }
  ResourceOptions resourceOptions() const { return resource_options_; }
  void setResourceOptions(ResourceOptions options) { resource_options_ = options; }

 private:
  ~HeapDescriptor() override = default;
  NS::UInteger size_ = 0;
  NS::UInteger storage_mode_ = 0;
  HazardTrackingMode hazard_tracking_ = HazardTrackingModeDefault;
  HeapType type_ = HeapTypeAutomatic;
  ResourceOptions resource_options_ = ResourceStorageModeShared;
};

// An Allocation, as in metal-cpp: a residency set may hold it.
class Heap : public Allocation {
 public:
  // A buffer of `length` bytes, or nullptr when it does not fit in what is left (Metal's nil).
  // Its hazard tracking mode is the heap's unless `options` name one.
  Buffer* newBuffer(NS::UInteger length, ResourceOptions options);
  // A placement heap's buffer at `offset`: nullptr when [offset, offset + length) leaves the heap.
  Buffer* newBuffer(NS::UInteger length, ResourceOptions options, NS::UInteger offset);
  NS::UInteger size() const { return size_; }
  NS::UInteger usedSize() const { return used_; }
  NS::UInteger currentAllocatedSize() const { return size_; }
  NS::UInteger allocatedSize() const override { return size_; }
  NS::UInteger maxAvailableSize(NS::UInteger alignment) const;
  HazardTrackingMode hazardTrackingMode() const { return hazard_tracking_; }
  HeapType type() const { return type_; }
  Device* device() const { return device_; }

  // metalsim's own: a buffer of this heap gives back its bytes when released.
  void release_bytes(NS::UInteger bytes);

 private:
  friend class Device;
  Heap(Device* device, const HeapDescriptor& descriptor);
  ~Heap() override = default;
  Buffer* made(Buffer* buffer, NS::UInteger bytes, ResourceOptions options);
  Device* device_;
  NS::UInteger size_;
  NS::UInteger used_ = 0;
  HazardTrackingMode hazard_tracking_;
  HeapType type_;
};

}  // namespace MTL
