// The tsan preset only. Kernels are compiled by clang++-19, which instruments a kernel's memset,
// memmove and memcpy as calls to __tsan_memset, __tsan_memmove and __tsan_memcpy; the engine and
// the programs link GCC's ThreadSanitizer runtime (libtsan, GCC 12 in Debian 12), which has no
// such entry points, only interceptors of the libc functions. These forward to the libc
// functions, so that the interceptors see the kernel's accesses as TSan would have.
#if defined(METALSIM_RACECHECK)
#include <cstddef>
#include <cstring>

extern "C" {
__attribute__((weak)) void* __tsan_memset(void* to, int byte, size_t bytes) {
  return std::memset(to, byte, bytes);
}
__attribute__((weak)) void* __tsan_memmove(void* to, const void* from, size_t bytes) {
  return std::memmove(to, from, bytes);
}
__attribute__((weak)) void* __tsan_memcpy(void* to, const void* from, size_t bytes) {
  return std::memcpy(to, from, bytes);
}
}
#endif
