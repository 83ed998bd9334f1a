// What metal-cpp programs ask a device beyond dispatching (MTLDevice.hpp's issue 26 block):
// the profile's answers, CopyAllDevices, queues with a count, residency sets.
#include <map>
#include <mutex>
#include <string>

#include "metalsim/Metal/MTLCommandQueue.hpp"
#include "metalsim/Metal/MTLDevice.hpp"
#include "metalsim/Metal/MTLLibrary.hpp"
#include "metalsim/Metal/MTLResidencySet.hpp"

namespace MTL {

// One per architecture name, for the life of the process (not owned by the caller).
Architecture* Device::architecture() const {
  static std::mutex mutex;
  static auto* known = new std::map<std::string, Architecture*>;  // never destroyed
  std::lock_guard lock(mutex);
  Architecture*& a = (*known)[profile_.architecture];
  if (a == nullptr) a = new Architecture(NS::String::string(profile_.architecture.c_str()));
  return a;
}

CommandQueue* Device::newCommandQueue(NS::UInteger maxCommandBufferCount) {
  return new CommandQueue(this, maxCommandBufferCount);
}

Library* Device::newLibrary(const NS::String* path, NS::Error** error) {
  auto url = NS::TransferPtr(NS::URL::alloc()->initFileURLWithPath(path));
  return newLibrary(url.get(), error);
}

ResidencySet* Device::newResidencySet(const ResidencySetDescriptor* descriptor, NS::Error** error) {
  if (error != nullptr) *error = nullptr;
  return new ResidencySet(this, descriptor);
}

NS::Array* CopyAllDevices() {
  Device* device = CreateSystemDefaultDevice();
  const NS::Object* devices[] = {device};
  NS::Array* all = NS::Array::array(devices, 1)->retain();  // the array holds the device
  device->release();
  return all;
}

}  // namespace MTL
