#pragma once
// The Foundation subset metal-cpp code relies on: reference-counted objects with retain() and
// release(), NS::SharedPtr for RAII ownership, NS::String and NS::Error.
//   `new...` and `copy...` return an object the caller owns (release it, or wrap it with
//   NS::TransferPtr); other getters return objects owned elsewhere, as in metal-cpp.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace NS {

using UInteger = std::uintptr_t;
using Integer = std::intptr_t;

class Object {
 public:
  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  Object* retain() {
    refs_.fetch_add(1, std::memory_order_relaxed);
    return this;
  }
  void release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  UInteger retainCount() const { return refs_.load(); }

 protected:
  virtual ~Object() = default;

 private:
  std::atomic<UInteger> refs_{1};
};

// Owning smart pointer; TransferPtr adopts a +1 reference, RetainPtr takes a new one.
template <class T>
class SharedPtr {
 public:
  SharedPtr() = default;
  SharedPtr(const SharedPtr& o) : p_(o.p_) {
    if (p_ != nullptr) p_->retain();
  }
  SharedPtr(SharedPtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  SharedPtr& operator=(SharedPtr o) {
    std::swap(p_, o.p_);
    return *this;
  }
  ~SharedPtr() {
    if (p_ != nullptr) p_->release();
  }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  void reset() { SharedPtr().swap(*this); }
  void swap(SharedPtr& o) noexcept { std::swap(p_, o.p_); }

  template <class U>
  friend SharedPtr<U> TransferPtr(U* p);
  template <class U>
  friend SharedPtr<U> RetainPtr(U* p);

 private:
  T* p_ = nullptr;
};

template <class T>
SharedPtr<T> TransferPtr(T* p) {
  SharedPtr<T> s;
  s.p_ = p;
  return s;
}

template <class T>
SharedPtr<T> RetainPtr(T* p) {
  if (p != nullptr) p->retain();
  return TransferPtr(p);
}

// metal-cpp returns some objects "autoreleased" (errors through NS::Error** out-parameters,
// command buffers): the caller does not own them. metalsim keeps the most recent ones alive in
// a bounded process-wide pool; retain() one to keep it longer.
void autorelease(Object* object);

// metal-cpp programs wrap their work in an autorelease pool; metalsim's autoreleased objects
// live in a bounded pool of their own (see autorelease), so this one only has to exist.
class AutoreleasePool : public Object {
 public:
  static AutoreleasePool* alloc() { return new AutoreleasePool; }
  AutoreleasePool* init() { return this; }
  void drain() { release(); }
};

enum StringEncoding : UInteger { ASCIIStringEncoding = 1, UTF8StringEncoding = 4 };

class String : public Object {
 public:
  // Autoreleased in metal-cpp; here owned by a process-wide pool of interned strings.
  static String* string(const char* text, StringEncoding encoding = UTF8StringEncoding);
  static String* alloc() { return new String; }
  String* init(const char* text, StringEncoding) {
    text_ = text;
    return this;
  }
  const char* utf8String() const { return text_.c_str(); }
  UInteger length() const { return text_.size(); }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

class Error : public Object {
 public:
  Error(Integer code, std::string description) : code_(code), text_(std::move(description)) {
    description_.init(text_.c_str(), UTF8StringEncoding);
  }
  Integer code() const { return code_; }
  String* localizedDescription() { return &description_; }

 private:
  ~Error() override = default;
  Integer code_;
  std::string text_;
  String description_;
};

}  // namespace NS

// metal-cpp's macro for string literals.
#define MTLSTR(literal) NS::String::string(literal, NS::UTF8StringEncoding)
