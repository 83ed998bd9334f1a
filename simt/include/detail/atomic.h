#pragma once
// The implementation of the atomic functions that the public header metal_atomic lists (MSL spec
// 6.15), on device and threadgroup memory (plain pointers here).
//
// Threadgroups run in parallel on different OS threads, so every operation is a real hardware
// atomic (the __atomic builtins of GCC and Clang on the object's 4 or 8 bytes); lanes of one
// threadgroup are fibers of one thread, for which the same code is trivially atomic.
// atomic_float's fetch_add/sub is a compare-and-swap loop on the bit pattern. Memory orders map
// to the C++ ones (MSL allows only memory_order_relaxed for most functions; the stronger ones
// are accepted and honoured).
//
// Layout: atomic<T> is a trivially copyable struct holding one word (atomic_bool: a 4-byte word,
// 0 or 1; atomic_float: the float's bits), so that atomic_int/uint/float/bool are 4 bytes and
// can live in device buffers the host fills with plain integers or floats.
#include <cstdint>
#include <type_traits>

#include "detail/scalar.h"

namespace metal {

// Defined in metal_atomic, before this header is included.
enum memory_order : int;
template <class T>
struct atomic;

namespace detail::atomics {

template <class T>
inline constexpr bool supported = std::is_same_v<T, int> || std::is_same_v<T, uint> ||
                                  std::is_same_v<T, bool> || std::is_same_v<T, float> ||
                                  std::is_same_v<T, ulong> || std::is_same_v<T, long>;

template <class T>
concept integral = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ------------------------------ the stored word
template <class T>
using storage_t = std::conditional_t<std::is_same_v<T, bool>, uint32_t,
                                     std::conditional_t<std::is_same_v<T, float>, uint32_t, T>>;

template <class T>
constexpr storage_t<T> to_word(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? 1u : 0u;
  else if constexpr (std::is_same_v<T, float>)
    return __builtin_bit_cast(uint32_t, v);
  else
    return v;
}
template <class T>
constexpr T from_word(storage_t<T> w) {
  if constexpr (std::is_same_v<T, bool>)
    return w != 0;
  else if constexpr (std::is_same_v<T, float>)
    return __builtin_bit_cast(float, w);
  else
    return w;
}

template <class T>
storage_t<T>* word(const volatile atomic<T>* object) {
  return const_cast<storage_t<T>*>(&object->metalsim_word_);
}

// ------------------------------ memory orders
// MSL's memory_order enumerators are, in order, relaxed, acquire, release, acq_rel, seq_cst.
constexpr int builtin_order(memory_order o) {
  constexpr int orders[] = {__ATOMIC_RELAXED, __ATOMIC_ACQUIRE, __ATOMIC_RELEASE,
                            __ATOMIC_ACQ_REL, __ATOMIC_SEQ_CST};
  return unsigned(o) < 5 ? orders[int(o)] : __ATOMIC_SEQ_CST;
}
// What a load may use (no release part).
constexpr int load_order(memory_order o) {
  const int b = builtin_order(o);
  return b == __ATOMIC_RELAXED || b == __ATOMIC_SEQ_CST ? b : __ATOMIC_ACQUIRE;
}
// What a store may use (no acquire part).
constexpr int store_order(memory_order o) {
  const int b = builtin_order(o);
  return b == __ATOMIC_RELAXED || b == __ATOMIC_SEQ_CST ? b : __ATOMIC_RELEASE;
}

// ------------------------------ load, store, exchange, compare-exchange
template <class T>
void store(volatile atomic<T>* object, T desired, memory_order order) {
  __atomic_store_n(word(object), to_word<T>(desired), store_order(order));
}
template <class T>
T load(const volatile atomic<T>* object, memory_order order) {
  return from_word<T>(__atomic_load_n(word(object), load_order(order)));
}
template <class T>
T exchange(volatile atomic<T>* object, T desired, memory_order order) {
  return from_word<T>(__atomic_exchange_n(word(object), to_word<T>(desired), builtin_order(order)));
}
// Compares bit patterns (as the hardware does: -0.0f and 0.0f differ, a NaN may equal itself).
// Never fails spuriously. On failure, *expected receives the current value.
template <class T>
bool compare_exchange(volatile atomic<T>* object, T* expected, T desired, memory_order success,
                      memory_order failure) {
  storage_t<T> exp = to_word<T>(*expected);
  const bool ok = __atomic_compare_exchange_n(word(object), &exp, to_word<T>(desired), false,
                                              builtin_order(success), load_order(failure));
  if (!ok) *expected = from_word<T>(exp);
  return ok;
}

// ------------------------------ fetch-and-modify (the old value is returned)
// f(old) is the new value, stored by a compare-and-swap loop on the word.
template <class T, class F>
T fetch_modify(volatile atomic<T>* object, memory_order order, F f) {
  storage_t<T>* w = word(object);
  storage_t<T> old = __atomic_load_n(w, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(w, &old, to_word<T>(f(from_word<T>(old))), true,
                                      builtin_order(order), __ATOMIC_RELAXED)) {
  }
  return from_word<T>(old);
}

// Integers add, subtract and combine bits in one instruction; floats loop.
template <class T>
T fetch_add(volatile atomic<T>* object, T operand, memory_order order) {
  if constexpr (std::is_same_v<T, float>)
    return fetch_modify(object, order, [&](float v) { return v + operand; });
  else
    return __atomic_fetch_add(word(object), operand, builtin_order(order));
}
template <class T>
T fetch_sub(volatile atomic<T>* object, T operand, memory_order order) {
  if constexpr (std::is_same_v<T, float>)
    return fetch_modify(object, order, [&](float v) { return v - operand; });
  else
    return __atomic_fetch_sub(word(object), operand, builtin_order(order));
}
template <class T>
T fetch_and(volatile atomic<T>* object, T operand, memory_order order) {
  return __atomic_fetch_and(word(object), operand, builtin_order(order));
}
template <class T>
T fetch_or(volatile atomic<T>* object, T operand, memory_order order) {
  return __atomic_fetch_or(word(object), operand, builtin_order(order));
}
template <class T>
T fetch_xor(volatile atomic<T>* object, T operand, memory_order order) {
  return __atomic_fetch_xor(word(object), operand, builtin_order(order));
}
template <class T>
T fetch_min(volatile atomic<T>* object, T operand, memory_order order) {
  return fetch_modify(object, order, [&](T v) { return operand < v ? operand : v; });
}
template <class T>
T fetch_max(volatile atomic<T>* object, T operand, memory_order order) {
  return fetch_modify(object, order, [&](T v) { return v < operand ? operand : v; });
}

// ------------------------------ fences
// A full fence whatever the order (a relaxed fence orders nothing in C++; MSL's orders memory).
inline void fence(memory_order order) {
  const int b = builtin_order(order);
  __atomic_thread_fence(b == __ATOMIC_RELAXED ? __ATOMIC_SEQ_CST : b);
}

}  // namespace detail::atomics
}  // namespace metal
