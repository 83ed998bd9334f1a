#pragma once
// NS::URL as metal-cpp spells it: file URLs only (MTL::Device::newLibrary(url, error) reads a
// .metal file).
#include <string>

#include "metalsim/Foundation/NSObject.hpp"

namespace NS {

class URL : public Referencing<URL> {
 public:
  // Autoreleased, as in metal-cpp: the caller does not own it.
  static URL* fileURLWithPath(const String* path);

  static URL* alloc() { return new URL; }
  URL* init() { return this; }
  URL* initFileURLWithPath(const String* path);
  // A URL string: file:///path (or a bare path).
  URL* init(const String* url);
  // The path of the file the URL names.
  const char* fileSystemRepresentation() const { return path_.c_str(); }
  // The same path as a string (interned), and the URL as text: file:///path.
  String* path() const { return String::string(path_.c_str()); }
  String* absoluteString() const { return String::string(("file://" + path_).c_str()); }
  bool isFileURL() const { return true; }
  // A new URL with `component` appended to the path (one "/" between); autoreleased.
  URL* URLByAppendingPathComponent(const String* component) const;

 private:
  ~URL() override = default;
  std::string path_;
};

}  // namespace NS
