#include "metalsim/Metal/MTLBuffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#include "simt/checks/access_shadow.h"

namespace MTL {
namespace {

NS::UInteger page_size() {
  static const NS::UInteger size = NS::UInteger(sysconf(_SC_PAGESIZE));
  return size;
}
NS::UInteger round_up(NS::UInteger n, NS::UInteger to) { return (n + to - 1) / to * to; }

}  // namespace

// Layout: [guard page][data pages, contents flush at the end][guard page]. The contents start
// 16-byte aligned; the up to 15 bytes past an odd length and the bytes before the contents are
// marked in the access shadow (simt/checks/access_shadow.h), so that instrumented kernels find
// every byte outside the buffer, not only the guard pages.
Buffer::Buffer(NS::UInteger length) : length_(length) {
  const NS::UInteger page = page_size();
  const NS::UInteger data = round_up(length == 0 ? 1 : length, 16);
  const NS::UInteger data_pages = round_up(data, page);
  mapping_size_ = data_pages + 2 * page;
  mapping_ =
      mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) throw std::bad_alloc();
  char* base = static_cast<char*>(mapping_);
  mprotect(base, page, PROT_NONE);
  mprotect(base + page + data_pages, page, PROT_NONE);
  contents_ = base + page + data_pages - data;
  namespace shadow = metalsim::engine::shadow;
  shadow::mark(base + page, data_pages - data, shadow::kUnused);
  shadow::mark_valid(contents_, length);
  if (length == 0) shadow::mark(contents_, data, shadow::kUnused);
}

Buffer::~Buffer() {
  // The addresses may be anyone's next.
  metalsim::engine::shadow::mark_valid(static_cast<char*>(mapping_) + page_size(),
                                       mapping_size_ - 2 * page_size());
  munmap(mapping_, mapping_size_);
}

const char* Buffer::guardBegin() const {
  return static_cast<const char*>(mapping_) + mapping_size_ - page_size();
}
const char* Buffer::guardEnd() const { return static_cast<const char*>(mapping_) + mapping_size_; }

NS::String* Buffer::label() const { return NS::String::string(label_.c_str()); }

}  // namespace MTL
