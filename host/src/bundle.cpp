// NS::Bundle on Linux (Foundation/NSBundle.hpp says what each call answers).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "metalsim/Foundation/NSBundle.hpp"

namespace NS {
namespace {

namespace fs = std::filesystem;

bool is_directory(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_directory(path, ec);
}

// The directory a bundle keeps its resources in (NSBundle.hpp).
std::string resources_of(const std::string& path) {
  for (const char* sub : {"/Contents/Resources", "/Resources"})
    if (is_directory(path + sub)) return path + sub;
  return path;
}

// The <string> after <key>CFBundleIdentifier</key> in an XML property list; "" if none.
std::string identifier_in(const std::string& plist) {
  std::ifstream in(plist);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::string key = "<key>CFBundleIdentifier</key>";
  size_t at = s.find(key);
  if (at == std::string::npos) return "";
  at = s.find("<string>", at + key.size());
  if (at == std::string::npos) return "";
  at += std::string("<string>").size();
  const size_t end = s.find("</string>", at);
  return end == std::string::npos ? "" : s.substr(at, end - at);
}

std::string identifier_of(const std::string& path) {
  for (const char* plist : {"/Contents/Info.plist", "/Resources/Info.plist", "/Info.plist"}) {
    std::string id = identifier_in(path + plist);
    if (!id.empty()) return id;
  }
  return "";
}

std::string executable_path() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

URL* url_of(const std::string& path) { return URL::fileURLWithPath(String::string(path.c_str())); }

String* interned_or_null(const std::string& text) {
  return text.empty() ? nullptr : String::string(text.c_str());
}

}  // namespace

Bundle* Bundle::mainBundle() {
  static Bundle* const main = [] {
    auto* b = new Bundle;
    b->executable_ = executable_path();
    b->path_ = fs::path(b->executable_).parent_path().string();
    b->resources_ = b->path_;  // a command-line tool's resources sit beside it
    return b;
  }();
  return main;
}

Array* Bundle::allBundles() {
  const Object* main = mainBundle();
  return Array::array(&main, 1);
}

Array* Bundle::allFrameworks() { return Array::array(nullptr, 0); }

Bundle* Bundle::bundle(const String* path) {
  Bundle* b = alloc()->init(path);
  return b != nullptr ? b->autorelease() : nullptr;
}

Bundle* Bundle::bundle(const URL* url) {
  Bundle* b = alloc()->init(url);
  return b != nullptr ? b->autorelease() : nullptr;
}

Bundle* Bundle::init(const String* path) {
  const std::string dir = path != nullptr ? path->str() : std::string();
  if (!is_directory(dir)) {
    release();
    return nullptr;
  }
  path_ = dir;
  resources_ = resources_of(dir);
  identifier_ = identifier_of(dir);
  return this;
}

Bundle* Bundle::init(const URL* url) { return init(url != nullptr ? url->path() : nullptr); }

String* Bundle::bundlePath() const { return String::string(path_.c_str()); }
URL* Bundle::bundleURL() const { return url_of(path_); }
String* Bundle::resourcePath() const { return String::string(resources_.c_str()); }
URL* Bundle::resourceURL() const { return url_of(resources_); }
String* Bundle::executablePath() const { return interned_or_null(executable_); }
URL* Bundle::executableURL() const { return executable_.empty() ? nullptr : url_of(executable_); }
String* Bundle::bundleIdentifier() const { return interned_or_null(identifier_); }

String* Bundle::pathForResource(const String* name, const String* extension) const {
  if (name == nullptr) return nullptr;
  std::string file = resources_ + "/" + name->str();
  if (extension != nullptr && !extension->str().empty()) file += "." + extension->str();
  std::error_code ec;
  return fs::exists(file, ec) ? String::string(file.c_str()) : nullptr;
}

URL* Bundle::URLForResource(const String* name, const String* extension) const {
  String* path = pathForResource(name, extension);
  return path != nullptr ? URL::fileURLWithPath(path) : nullptr;
}

}  // namespace NS
