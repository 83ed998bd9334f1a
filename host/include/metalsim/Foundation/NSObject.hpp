#pragma once
// The Foundation subset metal-cpp code relies on: reference-counted objects with retain() and
// release(), NS::SharedPtr for RAII ownership, NS::String and NS::Error.
//   `new...` and `copy...` return an object the caller owns (release it, or wrap it with
//   NS::TransferPtr); other getters return objects owned elsewhere, as in metal-cpp.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace NS {

using UInteger = std::uintptr_t;
using Integer = std::intptr_t;

// Objective-C's messages to nil: metal-cpp calls a method through objc_msgSend, and a message to
// nil does nothing and returns 0, so metal-cpp code may call a method on a null object and rely
// on that (MLX asks a null buffer, its empty arrays', for its length). In C++ such a call is
// undefined and the compiler assumes `this` is not null; the methods such code calls on
// possibly-null objects ask is_nil(this), which an empty asm keeps the compiler from folding.
// docs/host_api.md, "Messages to nil".
inline bool is_nil(const void* object) {
  asm("" : "+r"(object));
  return object == nullptr;
}
// The null such a method returns, laundered the same way: a null the compiler sees would be
// warned of (-Wnull-dereference) at every use of the method's result.
template <class T>
T* nil() {
  T* object = nullptr;
  asm("" : "+r"(object));
  return object;
}

class Object {
 public:
  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  Object* retain() {
    if (is_nil(this)) return nil<Object>();
    refs_.fetch_add(1, std::memory_order_relaxed);
    return this;
  }
  void release() {
    if (is_nil(this)) return;
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  UInteger retainCount() const { return is_nil(this) ? 0 : refs_.load(); }
  // Hands this reference to the innermost AutoreleasePool open on this thread, released when the
  // pool drains; with none open, to metalsim's bounded process-wide pool (NS::autorelease).
  // Classes made with NS::Referencing return their own type, as metal-cpp's do.
  Object* autorelease();

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
  SharedPtr(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): as metal-cpp's
  SharedPtr(const SharedPtr& o) : p_(o.p_) {
    if (p_ != nullptr) p_->retain();
  }
  SharedPtr(SharedPtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  // From a pointer to a derived class, as metal-cpp's.
  template <class U>
    requires std::is_convertible_v<U*, T*>
  SharedPtr(const SharedPtr<U>& o)  // NOLINT(google-explicit-constructor)
      : p_(o.get()) {
    if (p_ != nullptr) p_->retain();
  }
  template <class U>
    requires std::is_convertible_v<U*, T*>
  SharedPtr(SharedPtr<U>&& o) noexcept  // NOLINT(google-explicit-constructor)
      : p_(o.detach()) {}
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
  // Gives up the reference without releasing it: the caller owns it now.
  T* detach() { return std::exchange(p_, nullptr); }

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

template <class T, class U>
bool operator==(const SharedPtr<T>& a, const SharedPtr<U>& b) {
  return a.get() == b.get();
}
template <class T>
bool operator==(const SharedPtr<T>& a, std::nullptr_t) {
  return a.get() == nullptr;
}

// metal-cpp returns some objects "autoreleased" (errors through NS::Error** out-parameters,
// descriptors made by class methods): the caller does not own them. `object` goes to the
// innermost AutoreleasePool open on this thread and is released when that pool drains; with no
// pool open (metalsim programs need none), to a bounded process-wide pool that keeps the 256
// most recent. retain() one to keep it longer.
void autorelease(Object* object);

// metal-cpp's NS::Referencing: a base that gives retain() and autorelease() the derived class's
// type, so `X::alloc()->init()->autorelease()` is still an X*.
template <class Derived, class Base = Object>
class Referencing : public Base {
 public:
  Derived* retain() {
    if (is_nil(this)) return nil<Derived>();
    Base::retain();
    return static_cast<Derived*>(this);
  }
  Derived* autorelease() {
    if (is_nil(this)) return nil<Derived>();
    NS::autorelease(this);
    return static_cast<Derived*>(this);
  }

 protected:
  ~Referencing() override = default;
};

// Foundation's autorelease pool: init() opens it on the calling thread (innermost), release()
// or drain() closes it, releasing each object autoreleased into it meanwhile (objects their
// release autoreleases too). Pools nest; closing one closes any still open inside it. Close a
// pool on the thread that opened it, as Foundation requires. Pools still open when their thread
// ends are drained then.
class AutoreleasePool : public Referencing<AutoreleasePool> {
 public:
  static AutoreleasePool* alloc() { return new AutoreleasePool; }
  AutoreleasePool* init();
  void drain() { release(); }
  // Foundation's -addObject: (the same as object->autorelease() with this pool innermost).
  void addObject(Object* object);
  // metalsim's own: the innermost pool open on this thread, or nullptr.
  static AutoreleasePool* innermost();
  // metalsim's own: how many objects wait for this pool to drain.
  UInteger pendingCount() const { return objects_.size(); }

 private:
  friend struct ThreadPools;  // foundation.cpp: this thread's open pools
  AutoreleasePool() = default;
  ~AutoreleasePool() override;
  void empty();  // releases the objects, and those their release autoreleases
  std::vector<Object*> objects_;
  struct ThreadPools* stack_ = nullptr;  // the thread's open pools it is on; null: not open
};

enum StringEncoding : UInteger { ASCIIStringEncoding = 1, UTF8StringEncoding = 4 };

// Foundation's comparison results (String::compare).
enum ComparisonResult : Integer {
  OrderedAscending = -1,
  OrderedSame = 0,
  OrderedDescending = 1,
};

// An immutable string, held as UTF-8 (both encodings store the bytes given).
class String : public Referencing<String> {
 public:
  // Autoreleased in metal-cpp; here owned by a process-wide pool of interned strings (one per
  // distinct text, never freed), so a string from MTLSTR outlives any pool.
  static String* string(const char* text, StringEncoding encoding = UTF8StringEncoding);
  static String* string();                     // "", interned
  static String* string(const String* other);  // the same text, interned
  static String* alloc() { return new String; }
  String* init() { return this; }
  String* init(const char* text, StringEncoding) {
    text_ = text != nullptr ? text : "";
    return this;
  }
  String* init(const String* other) {
    text_ = other != nullptr ? other->text_ : "";
    return this;
  }
  const char* utf8String() const { return text_.c_str(); }
  const char* cString(StringEncoding) const { return text_.c_str(); }
  const char* fileSystemRepresentation() const { return text_.c_str(); }
  // Foundation's length: UTF-16 code units (the bytes, for ASCII text).
  UInteger length() const;
  // Bytes of the text in `encoding`, without the terminating zero.
  UInteger lengthOfBytes(StringEncoding) const { return text_.size(); }
  UInteger maximumLengthOfBytes(StringEncoding) const { return text_.size(); }
  bool isEqualToString(const String* other) const {
    return other != nullptr && other->text_ == text_;
  }
  // By bytes (UTF-8 orders as code points do).
  ComparisonResult compare(const String* other) const;
  // A new string, this one's text followed by `other`'s; autoreleased.
  String* stringByAppendingString(const String* other) const;
  // metalsim's own: the text.
  const std::string& str() const { return text_; }

 private:
  ~String() override = default;
  std::string text_;
};

// An error domain names who made the error (Foundation's NSErrorDomain).
using ErrorDomain = String*;
// The user-info key of an error's description (NSLocalizedDescriptionKey).
String* LocalizedDescriptionKey();

class Dictionary;  // NSDictionary.hpp

class Error : public Referencing<Error> {
 public:
  // metalsim's: an error of `domain` (nullptr: "metalsim") with its description.
  Error(Integer code, std::string description, const char* domain = nullptr);
  // Foundation's: the description from userInfo's LocalizedDescriptionKey, else Foundation's
  // "The operation couldn't be completed. (domain error code.)". Autoreleased.
  static Error* error(const String* domain, Integer code, const Dictionary* userInfo);
  Integer code() const { return code_; }
  String* domain() const { return domain_.get(); }
  String* localizedDescription() const { return description_.get(); }
  // The dictionary given to error(...) (nullptr for metalsim's own errors).
  Dictionary* userInfo() const { return user_info_.get(); }

 private:
  ~Error() override;
  Integer code_;
  SharedPtr<String> domain_;
  SharedPtr<String> description_;
  SharedPtr<Dictionary> user_info_;
};

}  // namespace NS

// metal-cpp's macro for string literals.
#define MTLSTR(literal) NS::String::string(literal, NS::UTF8StringEncoding)
