#pragma once
// The one place for the Apple GPU metalsim stands in for: the limits the dispatch validation
// enforces (host/src/dispatch_translation.cpp) and what MTL::Device answers about itself (name,
// architecture, GPU families, memory sizes). The default is an Apple M1 (GPU family Apple7,
// architecture applegpu_g13g) with 16 GB of unified memory; docs/host_api.md lists the values
// and where they come from. A Device made with another profile answers and enforces that one.
#include <cstdint>
#include <string>

#include "metalsim/Foundation/NSObject.hpp"

namespace MTL {

// Metal's GPU families, with metal-cpp's values (Device::supportsFamily).
enum GPUFamily : NS::Integer {
  GPUFamilyApple1 = 1001,
  GPUFamilyApple2 = 1002,
  GPUFamilyApple3 = 1003,
  GPUFamilyApple4 = 1004,
  GPUFamilyApple5 = 1005,
  GPUFamilyApple6 = 1006,
  GPUFamilyApple7 = 1007,
  GPUFamilyApple8 = 1008,
  GPUFamilyApple9 = 1009,
  GPUFamilyApple10 = 1010,
  GPUFamilyMac1 = 2001,
  GPUFamilyMac2 = 2002,
  GPUFamilyCommon1 = 3001,
  GPUFamilyCommon2 = 3002,
  GPUFamilyCommon3 = 3003,
  GPUFamilyMacCatalyst1 = 4001,
  GPUFamilyMacCatalyst2 = 4002,
  GPUFamilyMetal3 = 5001,
  GPUFamilyMetal4 = 5002,
};

enum DeviceLocation : NS::UInteger {
  DeviceLocationBuiltIn = 0,
  DeviceLocationSlot = 1,
  DeviceLocationExternal = 2,
  DeviceLocationUnspecified = NS::UInteger(-1),
};

// The GPU's architecture (Device::architecture()): its name, as Metal gives it
// ("applegpu_g13g": generation 13, 'g' for the base and Pro chips).
class Architecture : public NS::Referencing<Architecture> {
 public:
  NS::String* name() const { return name_; }

 private:
  friend class Device;
  explicit Architecture(NS::String* name) : name_(name) {}
  ~Architecture() override = default;
  NS::String* name_;  // interned
};

struct DeviceProfile {
  // What the device says it is.
  std::string name = "Apple M1 (metalsim)";
  std::string architecture = "applegpu_g13g";
  uint64_t registryID = 0x6d6574616c73696dull;  // "metalsim" in ASCII
  // The GPU families it supports: Apple1 to appleFamily (0: none), Mac1 to macFamily, Common1
  // to commonFamily, and Metal3 when metal3. Metal 4 (GPUFamilyMetal4) is not: metalsim has
  // none of its API.
  int appleFamily = 7;
  int macFamily = 2;
  int commonFamily = 3;
  bool metal3 = true;
  // Memory: two thirds of 16 GiB, as an M1 with 16 GB reports; the largest buffer (newBuffer
  // gives nullptr past it).
  uint64_t recommendedMaxWorkingSetSize = 11453251584ull;
  NS::UInteger maxBufferLength = NS::UInteger(8) << 30;
  bool hasUnifiedMemory = true;

  // The limits Metal enforces on every Apple GPU of family Apple7 and later.
  NS::UInteger maxThreadgroupMemoryLength = 32 * 1024;
  NS::UInteger maxThreadsPerThreadgroup = 1024;
  NS::UInteger threadExecutionWidth = 32;
  NS::UInteger maxSetBytesLength = 4 * 1024;
  NS::UInteger maxBufferBindings = 31;

  bool supportsFamily(GPUFamily family) const {
    const NS::Integer f = family;
    if (f >= GPUFamilyApple1 && f <= GPUFamilyApple10) return f - 1000 <= appleFamily;
    if (f >= GPUFamilyMac1 && f <= GPUFamilyMac2) return f - 2000 <= macFamily;
    if (f >= GPUFamilyCommon1 && f <= GPUFamilyCommon3) return f - 3000 <= commonFamily;
    if (f == GPUFamilyMetal3) return metal3;
    return false;  // Mac Catalyst, Metal 4, values Metal does not define
  }
};

}  // namespace MTL
