// NS::Array, NS::Dictionary, NS::Number and NS::URL (Foundation/NSArray.hpp, NSDictionary.hpp,
// NSNumber.hpp, NSURL.hpp).
#include <cstdio>
#include <string>

#include "metalsim/Foundation/NSArray.hpp"
#include "metalsim/Foundation/NSDictionary.hpp"
#include "metalsim/Foundation/NSNumber.hpp"
#include "metalsim/Foundation/NSURL.hpp"

namespace NS {
namespace {

template <class T>
T* autoreleased(T* object) {
  autorelease(object);
  return object;
}

// isEqual: for the keys metal-cpp code uses (strings); identity otherwise.
bool same_key(const Object* a, const Object* b) {
  if (a == b) return true;
  const auto* sa = dynamic_cast<const String*>(a);
  const auto* sb = dynamic_cast<const String*>(b);
  return sa != nullptr && sb != nullptr && sa->str() == sb->str();
}

}  // namespace

// ------------------------------ Array
Array* Array::array(const Object* const* objects, UInteger count) {
  auto* a = new Array;
  a->objects_.reserve(count);
  for (UInteger i = 0; i < count; ++i)
    a->objects_.push_back(RetainPtr(const_cast<Object*>(objects[i])));
  return autoreleased(a);
}

// ------------------------------ Dictionary
Dictionary* Dictionary::dictionary() { return autoreleased(alloc()->init()); }

Dictionary* Dictionary::dictionary(const Object* object, const Object* key) {
  return dictionary(&object, &key, 1);
}

Dictionary* Dictionary::dictionary(const Object* const* objects, const Object* const* keys,
                                   UInteger count) {
  return autoreleased(alloc()->init(objects, keys, count));
}

// A later value under an equal key replaces the earlier one, as in Foundation.
Dictionary* Dictionary::init(const Object* const* objects, const Object* const* keys,
                             UInteger count) {
  for (UInteger i = 0; i < count; ++i) {
    // Foundation's dictionaries retain what they hold; the const is metal-cpp's signature.
    auto key = RetainPtr(const_cast<Object*>(keys[i]));
    auto value = RetainPtr(const_cast<Object*>(objects[i]));
    bool replaced = false;
    for (Entry& e : entries_)
      if (same_key(e.first.get(), key.get())) {
        e.second = value;
        replaced = true;
      }
    if (!replaced) entries_.emplace_back(std::move(key), std::move(value));
  }
  return this;
}

Object* Dictionary::find(const Object* key) const {
  for (const Entry& e : entries_)
    if (same_key(e.first.get(), key)) return e.second.get();
  return nullptr;
}

// ------------------------------ Number
Number* Number::number(bool value) { return autoreleased(new Number(value ? 1LL : 0LL)); }
Number* Number::number(int value) {
  return autoreleased(new Number(static_cast<long long>(value)));
}
Number* Number::number(unsigned int value) {
  return autoreleased(new Number(static_cast<long long>(value)));
}
Number* Number::number(long value) {
  return autoreleased(new Number(static_cast<long long>(value)));
}
Number* Number::number(unsigned long value) {
  return autoreleased(new Number(static_cast<unsigned long long>(value)));
}
Number* Number::number(long long value) { return autoreleased(new Number(value)); }
Number* Number::number(unsigned long long value) { return autoreleased(new Number(value)); }
Number* Number::number(float value) { return autoreleased(new Number(static_cast<double>(value))); }
Number* Number::number(double value) { return autoreleased(new Number(value)); }

bool Number::boolValue() const { return doubleValue() != 0; }

long long Number::longLongValue() const {
  return std::visit([](auto v) { return static_cast<long long>(v); }, value_);
}

double Number::doubleValue() const {
  return std::visit([](auto v) { return static_cast<double>(v); }, value_);
}

String* Number::stringValue() const {
  char text[40];
  if (const auto* i = std::get_if<long long>(&value_)) {
    std::snprintf(text, sizeof text, "%lld", *i);
  } else if (const auto* u = std::get_if<unsigned long long>(&value_)) {
    std::snprintf(text, sizeof text, "%llu", *u);
  } else {
    std::snprintf(text, sizeof text, "%.17g", std::get<double>(value_));
  }
  return String::string(text);
}

// ------------------------------ URL
URL* URL::fileURLWithPath(const String* path) {
  return autoreleased(alloc()->initFileURLWithPath(path));
}

URL* URL::initFileURLWithPath(const String* path) {
  path_ = path != nullptr ? path->str() : std::string();
  return this;
}

URL* URL::URLByAppendingPathComponent(const String* component) const {
  URL* joined = alloc();
  joined->path_ = path_;
  const std::string tail = component != nullptr ? component->str() : std::string();
  if (!tail.empty() && !joined->path_.empty() && joined->path_.back() != '/') joined->path_ += '/';
  joined->path_ += tail;
  return autoreleased(joined);
}

URL* URL::init(const String* url) {
  constexpr std::string_view kScheme = "file://";
  std::string text = url != nullptr ? url->str() : std::string();
  path_ = text.rfind(kScheme, 0) == 0 ? text.substr(kScheme.size()) : text;
  return this;
}

}  // namespace NS
