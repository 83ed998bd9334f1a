#include <deque>
#include <map>
#include <mutex>
#include <string>

#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace NS {

// Strings made by NS::String::string live as long as the process, interned by text: metal-cpp
// code creates them per call (MTLSTR) and never releases them.
String* String::string(const char* text, StringEncoding encoding) {
  static std::mutex mutex;
  static auto* interned = new std::map<std::string, String*>;  // never destroyed: see above
  std::lock_guard lock(mutex);
  String*& s = (*interned)[text];
  if (s == nullptr) s = alloc()->init(text, encoding);
  return s;
}

void autorelease(Object* object) {
  constexpr size_t kKept = 256;
  static std::mutex mutex;
  static auto* pool = new std::deque<SharedPtr<Object>>;
  std::lock_guard lock(mutex);
  pool->push_back(TransferPtr(object));
  if (pool->size() > kKept) pool->pop_front();
}

}  // namespace NS

namespace MTL {

NS::UInteger dataTypeSize(DataType type) {
  switch (type) {
    case DataTypeBool:
    case DataTypeChar:
    case DataTypeUChar: return 1;
    case DataTypeShort:
    case DataTypeUShort:
    case DataTypeHalf: return 2;
    case DataTypeHalf2:
    case DataTypeFloat:
    case DataTypeInt:
    case DataTypeUInt: return 4;
    case DataTypeHalf3:
    case DataTypeHalf4:
    case DataTypeFloat2:
    case DataTypeInt2:
    case DataTypeUInt2:
    case DataTypeLong:
    case DataTypeULong: return 8;
    case DataTypeFloat3:
    case DataTypeFloat4:
    case DataTypeInt3:
    case DataTypeInt4:
    case DataTypeUInt3:
    case DataTypeUInt4: return 16;
    case DataTypeNone: return 0;
  }
  return 0;
}

}  // namespace MTL
