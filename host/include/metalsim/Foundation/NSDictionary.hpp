#pragma once
// NS::Dictionary as metal-cpp spells it, for MTL::CompileOptions::preprocessorMacros: an
// immutable map of objects by key. Keys that are NS::String compare by text (isEqual:), other
// keys by identity. It retains its keys and values.
#include <utility>
#include <vector>

#include "metalsim/Foundation/NSObject.hpp"

namespace NS {

class Dictionary : public Object {
 public:
  // Autoreleased, as in metal-cpp: the caller does not own them.
  static Dictionary* dictionary();
  static Dictionary* dictionary(const Object* object, const Object* key);
  static Dictionary* dictionary(const Object* const* objects, const Object* const* keys,
                                UInteger count);

  static Dictionary* alloc() { return new Dictionary; }
  Dictionary* init() { return this; }
  Dictionary* init(const Object* const* objects, const Object* const* keys, UInteger count);

  // The value stored under `key`, or nullptr.
  template <class T = Object>
  T* object(const Object* key) const {
    return static_cast<T*>(find(key));
  }
  UInteger count() const { return entries_.size(); }

  // metalsim's own: the entries in insertion order (metal-cpp enumerates with keyEnumerator).
  using Entry = std::pair<SharedPtr<Object>, SharedPtr<Object>>;  // key, value
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  ~Dictionary() override = default;
  Object* find(const Object* key) const;
  std::vector<Entry> entries_;
};

}  // namespace NS
