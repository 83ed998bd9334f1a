#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "metalsim/Foundation/NSDictionary.hpp"
#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace NS {

// Strings made by NS::String::string live as long as the process, interned by text: metal-cpp
// code creates them per call (MTLSTR) and never releases them.
String* String::string(const char* text, StringEncoding encoding) {
  static std::mutex mutex;
  static auto* interned = new std::map<std::string, String*>;  // never destroyed: see above
  std::lock_guard lock(mutex);
  String*& s = (*interned)[text != nullptr ? text : ""];
  if (s == nullptr) s = alloc()->init(text, encoding);
  return s;
}

String* String::string() { return string(""); }

String* String::string(const String* other) {
  return string(other != nullptr ? other->utf8String() : "");
}

UInteger String::length() const {
  UInteger units = 0;
  for (unsigned char c : text_) {
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    units += c >= 0xF0 ? 2 : 1;        // a code point past U+FFFF is a surrogate pair
  }
  return units;
}

ComparisonResult String::compare(const String* other) const {
  const int c = text_.compare(other != nullptr ? other->text_ : std::string());
  return c < 0 ? OrderedAscending : c > 0 ? OrderedDescending : OrderedSame;
}

String* String::stringByAppendingString(const String* other) const {
  String* joined = alloc()->init(this);
  if (other != nullptr) joined->text_ += other->text_;
  return joined->autorelease();
}

String* LocalizedDescriptionKey() { return String::string("NSLocalizedDescription"); }

Error::Error(Integer code, std::string description, const char* domain)
    : code_(code),
      domain_(RetainPtr(String::string(domain != nullptr ? domain : "metalsim"))),
      description_(TransferPtr(String::alloc()->init(description.c_str(), UTF8StringEncoding))) {}

Error::~Error() = default;

Error* Error::error(const String* domain, Integer code, const Dictionary* userInfo) {
  const char* name = domain != nullptr ? domain->utf8String() : "";
  const auto* text =
      userInfo != nullptr ? userInfo->object<String>(LocalizedDescriptionKey()) : nullptr;
  std::string description = text != nullptr
                                ? text->str()
                                : "The operation couldn\u2019t be completed. (" +
                                      std::string(name) + " error " + std::to_string(code) + ".)";
  auto* e = new Error(code, std::move(description), name);
  e->user_info_ = RetainPtr(const_cast<Dictionary*>(userInfo));
  return e->autorelease();
}

// ------------------------------ autorelease pools
namespace {
// Set when this thread's ThreadPools is destroyed (trivially destructible, so still readable):
// a thread's later TLS destructors may still autorelease (MLX's thread-local command encoders
// commit as they go), and find no pool then.
thread_local bool tls_pools_gone = false;
}  // namespace

// This thread's open pools, innermost last. Pools still open when the thread ends are drained.
struct ThreadPools {
  std::vector<AutoreleasePool*> open;
  ~ThreadPools() {
    while (!open.empty()) close(open.front());
    tls_pools_gone = true;
  }
  // Closes `pool` and every pool opened inside it, innermost first.
  void close(AutoreleasePool* pool) {
    while (!open.empty()) {
      AutoreleasePool* inner = open.back();
      inner->empty();  // may autorelease more into `inner`, which empty() releases too
      open.pop_back();
      inner->stack_ = nullptr;
      if (inner == pool) return;
    }
  }
};

namespace {

// nullptr once the thread's TLS destructors destroyed it.
ThreadPools* thread_pools() {
  if (tls_pools_gone) return nullptr;
  thread_local ThreadPools pools;
  return &pools;
}

// Where autoreleased objects go with no pool open: the most recent ones are kept alive.
void keep_recent(Object* object) {
  constexpr size_t kKept = 256;
  static std::mutex mutex;
  static auto* pool = new std::deque<SharedPtr<Object>>;  // never destroyed: objects may outlive
  std::lock_guard lock(mutex);
  pool->push_back(TransferPtr(object));
  if (pool->size() > kKept) pool->pop_front();
}

}  // namespace

AutoreleasePool* AutoreleasePool::init() {
  if (stack_ == nullptr) {
    stack_ = thread_pools();  // none as the thread ends: the pool then drains when released
    if (stack_ != nullptr) stack_->open.push_back(this);
  }
  return this;
}

AutoreleasePool* AutoreleasePool::innermost() {
  ThreadPools* pools = thread_pools();
  return pools == nullptr || pools->open.empty() ? nullptr : pools->open.back();
}

void AutoreleasePool::addObject(Object* object) {
  if (object != nullptr) objects_.push_back(object);
}

void AutoreleasePool::empty() {
  while (!objects_.empty()) {
    std::vector<Object*> now;
    now.swap(objects_);
    for (Object* o : now) o->release();
  }
}

AutoreleasePool::~AutoreleasePool() {
  if (stack_ == nullptr) {
    empty();
    return;
  }
  if (stack_ != thread_pools()) {
    std::fprintf(stderr,
                 "metalsim: an NS::AutoreleasePool was released on a thread other than "
                 "the one that opened it (Foundation forbids it)\n");
    std::erase(stack_->open, this);
    empty();
    return;
  }
  stack_->close(this);
}

void autorelease(Object* object) {
  if (object == nullptr) return;
  ThreadPools* pools = thread_pools();
  if (pools != nullptr && !pools->open.empty()) {
    pools->open.back()->addObject(object);
    return;
  }
  keep_recent(object);
}

Object* Object::autorelease() {
  if (is_nil(this)) return nil<Object>();
  NS::autorelease(this);
  return this;
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
