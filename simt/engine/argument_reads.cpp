// The registry of the bindings each kernel entry reads (simt/abi/argument_reads.h).
#include "simt/abi/argument_reads.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "simt/abi/constant_conditions.h"

namespace metalsim::abi {

static_assert(offsetof(BoundArgs, buffers) == 0 &&
                  sizeof(BoundArgs::buffers) == conditions::kBufferBindingBytes,
              "the argument-reads pass follows loads through buffer bindings only");

namespace {

struct Range {
  uint32_t offset;
  uint32_t size;
  // The uses of the value, each the conditions (atoms, simt/abi/constant_conditions.h) that hold
  // where it runs; empty: read whatever the constants.
  std::vector<std::vector<uint32_t>> guards;
};

// What the pass found in one entry.
struct Reads {
  std::vector<Range> bindings;
  std::vector<uint32_t> required_constants;
  std::vector<uint32_t> used_constants;  // required or optional, in index order
  std::vector<uint32_t> nodes;           // the conditions' nodes
};

struct Registry {
  std::mutex mutex;  // dlopen'ed kernel libraries register from any thread
  std::unordered_map<const void*, Reads> reads_by_entry;
};

// Function-local so registration from other translation units' static initialisers is safe.
Registry& registry() {
  static Registry r;
  return r;
}

// The bytes of BoundArgs that hold `arg`'s binding; size 0 for a built-in.
struct Slot {
  uint32_t offset;
  uint32_t size;
};
Slot slot_of(const ArgInfo& arg) {
  constexpr uint32_t kPointer = sizeof(void*);
  switch (arg.kind) {
    case ArgKind::DeviceBuffer:
    case ArgKind::ConstantBuffer:
      return {uint32_t(offsetof(BoundArgs, buffers)) + arg.index * kPointer, kPointer};
    case ArgKind::Threadgroup:
      return {uint32_t(offsetof(BoundArgs, threadgroup)) + arg.index * kPointer, kPointer};
    case ArgKind::Texture:
      return {uint32_t(offsetof(BoundArgs, textures)) + arg.index * kPointer, kPointer};
    case ArgKind::Sampler:
      return {uint32_t(offsetof(BoundArgs, samplers)) + arg.index * kPointer, kPointer};
    case ArgKind::Builtin: return {0, 0};
  }
  return {0, 0};
}

// ------------------------------ conditions on function constants
namespace cond = conditions;

// A node's value: an integer of `width` bits, a float or double, a pointer into a constant's
// bytes (`room` of them from `p`), or not known.
struct Value {
  enum class Kind : uint8_t { Unknown, Int, Float, Pointer } kind = Kind::Unknown;
  uint32_t width = 0;
  uint64_t i = 0;
  double f = 0;
  const unsigned char* p = nullptr;
  uint32_t room = 0;
};

uint64_t mask(uint64_t x, uint32_t width) { return width >= 64 ? x : x & ((1ULL << width) - 1); }
int64_t sign_extend(uint64_t x, uint32_t width) {
  return width >= 64 ? int64_t(x) : int64_t(x << (64 - width)) >> (64 - width);
}
Value integer(uint64_t x, uint32_t width) {
  return {.kind = Value::Kind::Int, .width = width, .i = mask(x, width)};
}
Value floating(double x, uint32_t width) {
  return {.kind = Value::Kind::Float, .width = width, .f = width == 32 ? double(float(x)) : x};
}

// Evaluates the nodes of one entry with a pipeline's function constants. A value the nodes do
// not determine (a read past a constant's bytes, an unset constant's bytes, division, a shift by
// the width or more) is Unknown, and a condition Unknown is taken to hold.
class Evaluator {
 public:
  Evaluator(const KernelInfo& kernel, const std::vector<uint32_t>& nodes,
            std::span<const void* const> constants)
      : kernel_(kernel),
        nodes_(nodes),
        constants_(constants),
        memo_(nodes.size() / cond::kNodeWords) {}

  // Whether every atom of `guard` may hold.
  bool may_hold(const std::vector<uint32_t>& guard) {
    for (const uint32_t atom : guard) {
      const Value v = eval(atom >> 1);
      if (v.kind == Value::Kind::Int && v.i != (atom & 1)) return false;
    }
    return true;
  }

 private:
  Value eval(uint32_t n) {
    if (n >= memo_.size()) return {};
    if (!memo_[n]) memo_[n] = compute(n);
    return *memo_[n];
  }

  uint32_t constant_size(uint32_t index) const {
    for (const FunctionConstantInfo& c : kernel_.function_constants)
      if (c.index == index) return c.size;
    return 0;
  }

  static bool compare(uint32_t predicate, const Value& a, const Value& b, bool& out) {
    using K = Value::Kind;
    if (a.kind == K::Pointer && b.kind == K::Pointer) {
      if (predicate != cond::kIcmpEq && predicate != cond::kIcmpNe) return false;
      out = (a.p == b.p) == (predicate == cond::kIcmpEq);
      return true;
    }
    if (a.kind == K::Int && b.kind == K::Int) {
      const uint64_t x = a.i, y = b.i;
      const int64_t sx = sign_extend(x, a.width), sy = sign_extend(y, b.width);
      switch (predicate) {
        case cond::kIcmpEq: out = x == y; return true;
        case cond::kIcmpNe: out = x != y; return true;
        case cond::kIcmpUgt: out = x > y; return true;
        case cond::kIcmpUge: out = x >= y; return true;
        case cond::kIcmpUlt: out = x < y; return true;
        case cond::kIcmpUle: out = x <= y; return true;
        case cond::kIcmpSgt: out = sx > sy; return true;
        case cond::kIcmpSge: out = sx >= sy; return true;
        case cond::kIcmpSlt: out = sx < sy; return true;
        case cond::kIcmpSle: out = sx <= sy; return true;
        default: return false;
      }
    }
    if (a.kind == K::Float && b.kind == K::Float && predicate <= cond::kFcmpTrue) {
      // LLVM's float predicates: bit 0 "equal", bit 1 "greater", bit 2 "less", bit 3 "unordered".
      const bool unordered = std::isnan(a.f) || std::isnan(b.f);
      const uint32_t relation = unordered ? 8 : a.f == b.f ? 1 : a.f > b.f ? 2 : 4;
      out = (predicate & relation) != 0;
      return true;
    }
    return false;
  }

  Value compute(uint32_t n) {
    using K = Value::Kind;
    const uint32_t* w = nodes_.data() + size_t(n) * cond::kNodeWords;
    const auto op = cond::Op(w[0] & 0xff);
    const uint32_t width = (w[0] >> 8) & 0xff;
    const bool is_float = (w[0] & cond::kFloat) != 0;
    const uint32_t predicate = w[0] >> 24;
    // An operand: only an earlier node.
    auto operand = [&](uint32_t k) { return w[k] < n ? eval(w[k]) : Value{}; };
    switch (op) {
      case cond::Op::Int: {
        const uint64_t bits = uint64_t(w[1]) | uint64_t(w[2]) << 32;
        if (!is_float) return integer(bits, width);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return floating(d, width);
      }
      case cond::Op::Null: return {.kind = K::Pointer};
      case cond::Op::Constant: {
        const void* p = w[1] < constants_.size() ? constants_[w[1]] : nullptr;
        return {.kind = K::Pointer,
                .p = static_cast<const unsigned char*>(p),
                .room = p != nullptr ? constant_size(w[1]) : 0};
      }
      case cond::Op::Offset: {
        const Value base = operand(1);
        if (base.kind != K::Pointer || base.p == nullptr || w[2] > base.room) return {};
        return {.kind = K::Pointer, .p = base.p + w[2], .room = base.room - w[2]};
      }
      case cond::Op::Load: {
        const Value at = operand(1);
        const uint32_t bytes = width / 8;
        if (at.kind != K::Pointer || at.p == nullptr || bytes == 0 || bytes > 8 || bytes > at.room)
          return {};
        uint64_t bits = 0;
        std::memcpy(&bits, at.p, bytes);  // little-endian, as the kernel reads it
        if (!is_float) return integer(bits, width);
        if (width == 32) {
          float f;
          std::memcpy(&f, &bits, sizeof f);
          return floating(f, 32);
        }
        if (width != 64) return {};
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return floating(d, 64);
      }
      case cond::Op::ICmp:
      case cond::Op::FCmp: {
        bool out = false;
        return compare(predicate, operand(1), operand(2), out) ? integer(out, 1) : Value{};
      }
      case cond::Op::Trunc:
      case cond::Op::ZExt:
      case cond::Op::SExt: {
        const Value a = operand(1);
        if (a.kind != K::Int) return {};
        return integer(op == cond::Op::SExt ? uint64_t(sign_extend(a.i, w[2])) : a.i, width);
      }
      case cond::Op::Select: {
        const Value c = operand(1);
        if (c.kind != K::Int) return {};
        return c.i != 0 ? operand(2) : operand(3);
      }
      case cond::Op::FPCast: {
        const Value a = operand(1);
        return a.kind == K::Float ? floating(a.f, width) : Value{};
      }
      case cond::Op::SIToFP:
      case cond::Op::UIToFP: {
        const Value a = operand(1);
        if (a.kind != K::Int) return {};
        return floating(op == cond::Op::SIToFP ? double(sign_extend(a.i, w[2])) : double(a.i),
                        width);
      }
      default: break;
    }
    // The integer operations.
    const Value a = operand(1), b = operand(2);
    if (a.kind != K::Int || b.kind != K::Int) return {};
    const uint64_t x = a.i, y = b.i;
    switch (op) {
      case cond::Op::Add: return integer(x + y, width);
      case cond::Op::Sub: return integer(x - y, width);
      case cond::Op::Mul: return integer(x * y, width);
      case cond::Op::And: return integer(x & y, width);
      case cond::Op::Or: return integer(x | y, width);
      case cond::Op::Xor: return integer(x ^ y, width);
      case cond::Op::Shl: return y < width ? integer(x << y, width) : Value{};
      case cond::Op::LShr: return y < width ? integer(x >> y, width) : Value{};
      case cond::Op::AShr:
        return y < width ? integer(uint64_t(sign_extend(x, width) >> y), width) : Value{};
      default: return {};
    }
  }

  const KernelInfo& kernel_;
  const std::vector<uint32_t>& nodes_;
  std::span<const void* const> constants_;
  std::vector<std::optional<Value>> memo_;
};

bool overlaps(const Range& read, const Slot& slot) {
  return read.offset < slot.offset + slot.size && slot.offset < read.offset + read.size;
}

}  // namespace

bool argument_reads_known(const KernelInfo& kernel) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.reads_by_entry.count(reinterpret_cast<const void*>(kernel.entry)) != 0;
}

namespace {

// Whether `kernel` may read `arg`'s binding: under the values `constants` (by index, null where
// unset) when given, else under any values.
bool read_under(const KernelInfo& kernel, const ArgInfo& arg,
                const std::span<const void* const>* constants) {
  const Slot slot = slot_of(arg);
  if (slot.size == 0) return true;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.reads_by_entry.find(reinterpret_cast<const void*>(kernel.entry));
  if (it == r.reads_by_entry.end()) return true;
  std::optional<Evaluator> evaluator;
  for (const Range& read : it->second.bindings) {
    if (!overlaps(read, slot)) continue;
    if (read.guards.empty() || constants == nullptr) return true;
    if (!evaluator) evaluator.emplace(kernel, it->second.nodes, *constants);
    for (const std::vector<uint32_t>& guard : read.guards)
      if (evaluator->may_hold(guard)) return true;
  }
  return false;
}

}  // namespace

bool argument_read(const KernelInfo& kernel, const ArgInfo& arg) {
  return read_under(kernel, arg, nullptr);
}

bool argument_read(const KernelInfo& kernel, const ArgInfo& arg,
                   std::span<const void* const> constants) {
  return read_under(kernel, arg, &constants);
}

bool argument_active(const KernelInfo& kernel, const ArgInfo& arg,
                     std::span<const void* const> constants) {
  return argument_exists(arg, constants) && argument_read(kernel, arg, constants);
}

std::vector<uint32_t> required_function_constants(const KernelInfo& kernel) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.reads_by_entry.find(reinterpret_cast<const void*>(kernel.entry));
  return it != r.reads_by_entry.end() ? it->second.required_constants : std::vector<uint32_t>{};
}

std::vector<uint32_t> used_function_constants(const KernelInfo& kernel) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.reads_by_entry.find(reinterpret_cast<const void*>(kernel.entry));
  return it != r.reads_by_entry.end() ? it->second.used_constants : std::vector<uint32_t>{};
}

}  // namespace metalsim::abi

extern "C" void __metalsim_argument_reads_register(const void* entry, const uint32_t* ranges,
                                                   uint32_t count, const uint32_t* required,
                                                   uint32_t required_count, const uint32_t* guards,
                                                   const uint32_t* nodes) {
  using namespace metalsim::abi;
  Reads reads;
  uint32_t last_node = 0;  // the highest node an atom names: its operands come before it
  bool any_node = false;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t* t = ranges + 3 * size_t(i);
    Range range{t[0], t[1], {}};
    if (t[2] != conditions::kAlways && guards != nullptr) {
      const uint32_t* g = guards + t[2];
      const uint32_t uses = *g++;
      for (uint32_t u = 0; u < uses; ++u) {
        const uint32_t atoms = *g++;
        range.guards.emplace_back(g, g + atoms);
        for (uint32_t a = 0; a < atoms; ++a) last_node = std::max(last_node, g[a] >> 1);
        any_node = any_node || atoms > 0;
        g += atoms;
      }
    }
    reads.bindings.push_back(std::move(range));
  }
  if (any_node && nodes != nullptr)
    reads.nodes.assign(nodes, nodes + (size_t(last_node) + 1) * conditions::kNodeWords);
  for (uint32_t i = 0; i < required_count; ++i) {
    if ((required[i] & kOptionalConstant) == 0) reads.required_constants.push_back(required[i]);
    reads.used_constants.push_back(required[i] & ~kOptionalConstant);
  }
  std::sort(reads.used_constants.begin(), reads.used_constants.end());
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  // A template's entry compiled into two objects: the linker keeps one, both read the same.
  r.reads_by_entry.emplace(entry, std::move(reads));
}
