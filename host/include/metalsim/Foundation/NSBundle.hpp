#pragma once
// NS::Bundle as metal-cpp spells it, answered on Linux (host/src/bundle.cpp): a directory with
// resources. metal-cpp programs look for their .metallib files through it (MLX's SwiftPM and
// framework lookups); Linux has no application bundles and no frameworks, so:
//   - mainBundle() is the directory of the running executable (/proc/self/exe), as Foundation
//     answers for a command-line tool: bundlePath() and resourcePath() are that directory,
//     bundleIdentifier() is nullptr (no Info.plist there, as for a tool).
//   - allBundles() holds the main bundle, allFrameworks() nothing.
//   - a bundle made from a path (alloc()->init(path), bundle(path)) exists when the path is a
//     directory (else nullptr); its resources are in Contents/Resources (a macOS bundle), else
//     Resources (a framework), else the directory itself (a flat bundle); its identifier is
//     CFBundleIdentifier of its Info.plist (Contents/Info.plist, Resources/Info.plist or
//     Info.plist, XML form), if any.
#include <string>

#include "metalsim/Foundation/NSArray.hpp"
#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Foundation/NSURL.hpp"

namespace NS {

class Bundle : public Referencing<Bundle> {
 public:
  // Not owned by the caller (one per process).
  static Bundle* mainBundle();
  // Autoreleased arrays of bundles.
  static Array* allBundles();
  static Array* allFrameworks();
  // Autoreleased; nullptr when `path` is not a directory.
  static Bundle* bundle(const String* path);
  static Bundle* bundle(const URL* url);

  static Bundle* alloc() { return new Bundle; }
  // The bundle at `path`; nullptr (and this object released) when it is not a directory, as
  // Foundation's initWithPath:.
  Bundle* init(const String* path);
  Bundle* init(const URL* url);

  // Interned strings / autoreleased URLs, as Foundation's (not owned by the caller).
  String* bundlePath() const;
  URL* bundleURL() const;
  String* resourcePath() const;
  URL* resourceURL() const;
  // The executable: the main bundle's is the running program; nullptr for other bundles.
  String* executablePath() const;
  URL* executableURL() const;
  // CFBundleIdentifier, or nullptr.
  String* bundleIdentifier() const;
  // `resourcePath()/name.extension` when that file exists, else nullptr (autoreleased URL,
  // interned string). `extension` may be nullptr or empty: `name` alone.
  URL* URLForResource(const String* name, const String* extension) const;
  String* pathForResource(const String* name, const String* extension) const;

 private:
  Bundle() = default;
  ~Bundle() override = default;
  std::string path_;
  std::string resources_;
  std::string executable_;
  std::string identifier_;  // empty: none
};

}  // namespace NS
