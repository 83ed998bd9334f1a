#pragma once
// MTL::Resource: what buffers and textures have in common, as in metal-cpp. metalsim needs it for
// ComputeCommandEncoder::memoryBarrier(resources, count), which orders the listed ones only, and
// for the hazard tracking mode. Metal orders a tracked resource's uses across command buffers
// and queues by itself; an untracked one (ResourceHazardTrackingModeUntracked, or a heap's
// buffer by default) only where the program orders them, by events or by waiting on the host.
// With `race` on, metalsim reports uses of untracked memory by command buffers of two queues
// that nothing orders (race.dispatch, docs/checks.md#racedispatch).
#include "metalsim/Metal/MTLAllocation.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class Heap;

class Resource : public Allocation {
 public:
  HazardTrackingMode hazardTrackingMode() const { return hazard_tracking_; }
  // As the options asked (MLX asserts a buffer is not private before contents()). Every storage
  // mode is memory the host can read on metalsim: the mode is kept, not enforced.
  StorageMode storageMode() const { return storage_mode_; }
  // The heap it was made from, or nullptr.
  Heap* heap() const { return heap_; }

 protected:
  Resource() = default;
  ~Resource() override = default;
  HazardTrackingMode hazard_tracking_ = HazardTrackingModeTracked;
  StorageMode storage_mode_ = StorageModeShared;
  Heap* heap_ = nullptr;
};

}  // namespace MTL
