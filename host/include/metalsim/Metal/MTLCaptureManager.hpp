#pragma once
// MTL::CaptureManager: Xcode's GPU frame capture. metalsim has no GPU trace to write, so a
// capture never starts: startCapture returns false with an NS::Error of
// CaptureErrorNotSupported, as Metal answers when capture is not enabled, and supportsDestination
// is false for every destination (host/src/capture_manager.cpp).
#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Foundation/NSURL.hpp"

namespace MTL {

enum CaptureError : NS::Integer {
  CaptureErrorNotSupported = 1,
  CaptureErrorAlreadyCapturing = 2,
  CaptureErrorInvalidDescriptor = 3,
};

enum CaptureDestination : NS::Integer {
  CaptureDestinationDeveloperTools = 1,
  CaptureDestinationGPUTraceDocument = 2,
};

class CaptureDescriptor : public NS::Referencing<CaptureDescriptor> {
 public:
  static CaptureDescriptor* alloc() { return new CaptureDescriptor; }
  CaptureDescriptor* init() { return this; }
  NS::Object* captureObject() const { return object_.get(); }
  void setCaptureObject(NS::Object* object) { object_ = NS::RetainPtr(object); }
  CaptureDestination destination() const { return destination_; }
  void setDestination(CaptureDestination destination) { destination_ = destination; }
  NS::URL* outputURL() const { return url_.get(); }
  void setOutputURL(NS::URL* url) { url_ = NS::RetainPtr(url); }

 private:
  ~CaptureDescriptor() override = default;
  NS::SharedPtr<NS::Object> object_;
  CaptureDestination destination_ = CaptureDestinationDeveloperTools;
  NS::SharedPtr<NS::URL> url_;
};

class CaptureManager : public NS::Referencing<CaptureManager> {
 public:
  // One per process, not owned by the caller.
  static CaptureManager* sharedCaptureManager();
  bool supportsDestination(CaptureDestination) const { return false; }
  // false, with `error` (autoreleased) set when not null.
  bool startCapture(const CaptureDescriptor* descriptor, NS::Error** error);
  void stopCapture() {}
  bool isCapturing() const { return false; }

 private:
  CaptureManager() = default;
  ~CaptureManager() override = default;
};

}  // namespace MTL
