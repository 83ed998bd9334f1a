// MTL::CaptureManager: no capture on a CPU (MTLCaptureManager.hpp).
#include "metalsim/Metal/MTLCaptureManager.hpp"

#include "host/src/autoreleased_error.h"

namespace MTL {

CaptureManager* CaptureManager::sharedCaptureManager() {
  static CaptureManager* const shared = new CaptureManager;
  return shared;
}

bool CaptureManager::startCapture(const CaptureDescriptor*, NS::Error** error) {
  if (error != nullptr)
    *error = metalsim::host::autoreleased_error(
        CaptureErrorNotSupported,
        "metalsim cannot capture GPU work: there is no GPU trace to record on a CPU",
        "MTLCaptureErrorDomain");
  return false;
}

}  // namespace MTL
