#include "buffer_pool.h"

#include <map>
#include <utility>
#include <vector>

#include "bindings.h"

namespace metalsim::python {
namespace {

// What the pool may hold: enough for the buffers of a few calls of the same kernel, little
// enough that it never matters beside the arrays themselves.
constexpr size_t kMaxPooledBytes = 64u << 20;
constexpr size_t kMaxPerLength = 8;

struct Pool {
  std::map<size_t, std::vector<NS::SharedPtr<MTL::Buffer>>> by_length;
  size_t bytes = 0;
};

Pool& pool() {
  static Pool* const kPool = new Pool;  // never destroyed: buffers may die after static exit
  return *kPool;
}

}  // namespace

NS::SharedPtr<MTL::Buffer> take_buffer(size_t length) {
  Pool& p = pool();
  auto it = p.by_length.find(length);
  if (it != p.by_length.end() && !it->second.empty()) {
    NS::SharedPtr<MTL::Buffer> buffer = std::move(it->second.back());
    it->second.pop_back();
    p.bytes -= length;
    return buffer;
  }
  return NS::TransferPtr(device()->newBuffer(length, MTL::ResourceStorageModeShared));
}

void give_buffer(NS::SharedPtr<MTL::Buffer> buffer) {
  if (!buffer || buffer->isNoCopy()) return;  // released: a no-copy buffer is someone's memory
  Pool& p = pool();
  const size_t length = buffer->length();
  auto& same = p.by_length[length];
  if (same.size() >= kMaxPerLength || p.bytes + length > kMaxPooledBytes) return;  // released
  buffer->setLabel(nullptr);
  p.bytes += length;
  same.push_back(std::move(buffer));
}

}  // namespace metalsim::python
