// MTL::ResidencySet: the bookkeeping of a set, with nothing to make resident (MTLResidencySet.hpp).
#include "metalsim/Metal/MTLResidencySet.hpp"

#include <algorithm>

namespace MTL {

ResidencySet::ResidencySet(Device* device, const ResidencySetDescriptor* descriptor)
    : device_(device) {
  if (descriptor != nullptr) {
    label_ = NS::RetainPtr(descriptor->label());
    allocations_.reserve(descriptor->initialCapacity());
  }
}

uint64_t ResidencySet::allocatedSize() const {
  uint64_t total = 0;
  for (const auto& a : committed_) total += a->allocatedSize();
  return total;
}

void ResidencySet::addAllocation(const Allocation* allocation) { addAllocations(&allocation, 1); }

void ResidencySet::addAllocations(const Allocation* const allocations[], NS::UInteger count) {
  for (NS::UInteger i = 0; i < count; ++i)
    if (allocations[i] != nullptr && !containsAllocation(allocations[i]))
      allocations_.push_back(NS::RetainPtr(const_cast<Allocation*>(allocations[i])));
}

void ResidencySet::removeAllocation(const Allocation* allocation) {
  removeAllocations(&allocation, 1);
}

void ResidencySet::removeAllocations(const Allocation* const allocations[], NS::UInteger count) {
  for (NS::UInteger i = 0; i < count; ++i)
    std::erase_if(allocations_, [&](const auto& a) { return a.get() == allocations[i]; });
}

void ResidencySet::removeAllAllocations() { allocations_.clear(); }

bool ResidencySet::containsAllocation(const Allocation* allocation) const {
  return std::any_of(allocations_.begin(), allocations_.end(),
                     [&](const auto& a) { return a.get() == allocation; });
}

NS::Array* ResidencySet::allAllocations() const {
  std::vector<const NS::Object*> objects;
  for (const auto& a : allocations_) objects.push_back(a.get());
  return NS::Array::array(objects.data(), objects.size());
}

void ResidencySet::commit() {
  committed_ = allocations_;
  ++commits_;
}

}  // namespace MTL
