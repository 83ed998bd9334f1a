#pragma once
// NS::Array: an immutable list of retained objects, as metal-cpp returns them (a pipeline's
// reflection bindings). object<T>(i) casts as metal-cpp's does: the caller knows the type.
#include <vector>

#include "metalsim/Foundation/NSObject.hpp"

namespace NS {

class Array : public Referencing<Array> {
 public:
  // Autoreleased, as metal-cpp's NS::Array::array; each object is retained.
  static Array* array(const Object* const* objects, UInteger count);
  UInteger count() const { return objects_.size(); }
  template <class T = Object>
  T* object(UInteger index) const {
    return static_cast<T*>(objects_.at(index).get());
  }

 private:
  Array() = default;
  ~Array() override = default;
  std::vector<SharedPtr<Object>> objects_;
};

}  // namespace NS
