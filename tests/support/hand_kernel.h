#pragma once
// Kernels written by hand in C++ against the engine ABI (simt/abi/kernel.h): the layer the
// front generates from .metal files. Engine and host tests use them so they do not depend on
// the front.
#include <cstring>
#include <initializer_list>
#include <vector>

#include "simt/abi/kernel.h"
#include "simt/engine/sync.h"

namespace metalsim::testing {

using abi::ArgInfo;
using abi::ArgKind;
using abi::BoundArgs;
using abi::Builtin;
using abi::LaneCursor;

inline ArgInfo device_arg(const char* name, uint32_t index, uint32_t element_size,
                          bool is_const = false) {
  return {name,  ArgKind::DeviceBuffer, index,       "device T*", is_const,
          false, element_size,          element_size};
}
inline ArgInfo constant_arg(const char* name, uint32_t index, uint32_t size) {
  return {name, ArgKind::ConstantBuffer, index, "constant T&", true, true, size, 4};
}
inline ArgInfo threadgroup_arg(const char* name, uint32_t index, uint32_t element_size) {
  return {name,  ArgKind::Threadgroup, index,       "threadgroup T*", false,
          false, element_size,         element_size};
}

// One lane's body: reads its built-ins from the cursor.
using LaneBody = void (*)(const BoundArgs& args, const LaneCursor& lane);

template <LaneBody Body>
void lane_loop(const BoundArgs& args, LaneCursor& lanes) {
  while (lanes.next()) Body(args, lanes);
}

// Registers a hand-written kernel for the life of the program.
class HandKernel {
 public:
  HandKernel(const char* name, std::initializer_list<ArgInfo> args, abi::KernelEntry entry,
             uint32_t static_threadgroup_bytes = 0)
      : args_(args) {
    info_.name = name;
    info_.source_file = __FILE__;
    info_.args = args_;
    info_.entry = entry;
    info_.static_threadgroup_bytes = static_threadgroup_bytes;
    abi::KernelRegistry::add(info_);
  }

 private:
  std::vector<ArgInfo> args_;
  abi::KernelInfo info_;
};

template <class T>
T* buffer(const BoundArgs& a, uint32_t index) {
  return static_cast<T*>(a.buffers[index]);
}
template <class T>
T* threadgroup(const BoundArgs& a, uint32_t index) {
  return static_cast<T*>(a.threadgroup[index]);
}

}  // namespace metalsim::testing
