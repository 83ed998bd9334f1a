#pragma once
// MTL::ResidencySet (macOS 15): a set of allocations a program asks Metal to keep resident in
// GPU memory. A CPU has nothing to make resident, so metalsim keeps the set's bookkeeping only
// (host/src/residency_set.cpp; docs/host_api.md): add and remove change the set at once
// (containsAllocation, allocationCount, allAllocations); commit() makes its contents the
// committed ones, whose sizes allocatedSize() sums. requestResidency and endResidency are
// accepted. The set retains what it holds until it is removed. Command queues and command
// buffers accept sets (CommandQueue::addResidencySet, CommandBuffer::useResidencySet).
#include <cstdint>
#include <string>
#include <vector>

#include "metalsim/Foundation/NSArray.hpp"
#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Metal/MTLAllocation.hpp"

namespace MTL {

class Device;

class ResidencySetDescriptor : public NS::Referencing<ResidencySetDescriptor> {
 public:
  static ResidencySetDescriptor* alloc() { return new ResidencySetDescriptor; }
  ResidencySetDescriptor* init() { return this; }
  NS::String* label() const { return label_.get(); }
  void setLabel(const NS::String* label) { label_ = NS::RetainPtr(const_cast<NS::String*>(label)); }
  NS::UInteger initialCapacity() const { return initial_capacity_; }
  void setInitialCapacity(NS::UInteger capacity) { initial_capacity_ = capacity; }

 private:
  ~ResidencySetDescriptor() override = default;
  NS::SharedPtr<NS::String> label_;
  NS::UInteger initial_capacity_ = 0;
};

class ResidencySet : public NS::Referencing<ResidencySet> {
 public:
  Device* device() const { return device_; }
  NS::String* label() const { return label_.get(); }
  // The committed allocations' allocatedSize(), summed.
  uint64_t allocatedSize() const;
  void requestResidency() { ++residency_requests_; }
  void endResidency() { ++residency_ends_; }
  // An allocation already in the set, or nullptr, is not added again.
  void addAllocation(const Allocation* allocation);
  void addAllocations(const Allocation* const allocations[], NS::UInteger count);
  void removeAllocation(const Allocation* allocation);
  void removeAllocations(const Allocation* const allocations[], NS::UInteger count);
  void removeAllAllocations();
  bool containsAllocation(const Allocation* allocation) const;
  NS::UInteger allocationCount() const { return allocations_.size(); }
  // The allocations now in the set, in the order added; autoreleased.
  NS::Array* allAllocations() const;
  void commit();

  // metalsim's own: how many commits, requestResidency and endResidency calls it has had, and
  // how many allocations the last commit took.
  NS::UInteger commitCount() const { return commits_; }
  NS::UInteger residencyRequestCount() const { return residency_requests_; }
  NS::UInteger residencyEndCount() const { return residency_ends_; }
  NS::UInteger committedAllocationCount() const { return committed_.size(); }

 private:
  friend class Device;
  ResidencySet(Device* device, const ResidencySetDescriptor* descriptor);
  ~ResidencySet() override = default;
  Device* device_;
  NS::SharedPtr<NS::String> label_;
  std::vector<NS::SharedPtr<Allocation>> allocations_;
  std::vector<NS::SharedPtr<Allocation>> committed_;
  NS::UInteger commits_ = 0, residency_requests_ = 0, residency_ends_ = 0;
};

}  // namespace MTL
