#include "dispatch_translation.h"

#include <sys/mman.h>

#include <stdexcept>
#include <string>

#include "simt/abi/argument_reads.h"
#include "simt/abi/constant_conditions.h"
#include "texture_validation.h"

namespace metalsim::host {
namespace {

using report::CheckId;

// Walks the kernel's arguments once: each is checked against what is bound, and a valid one
// becomes the request's binding.
class Translator {
 public:
  Translator(const MTL::EncodedDispatch& d, const MTL::DeviceProfile& p, abi::DispatchRequest& r)
      : d_(d), profile_(p), req_(r) {}

  std::vector<report::Report> run() {
    if (!d_.pipeline) {
      fail(CheckId::api_misuse,
           "dispatch without a compute pipeline state (call setComputePipelineState)");
      return std::move(reports_);
    }
    kernel_ = &d_.pipeline->kernel();
    req_.kernel = kernel_;
    grid();
    req_.function_constants = d_.pipeline->functionConstants();
    for (const abi::ArgInfo& arg : kernel_->args) {
      if (!abi::argument_exists(arg, req_.function_constants)) {
        absent_argument(arg, "its [[function_constant]] is false");  // Metal drops it
      } else if (!bound(arg) && !abi::argument_read(*kernel_, arg, req_.function_constants)) {
        // Nothing to bind.
        absent_argument(arg, abi::argument_read(*kernel_, arg)
                                 ? "inactive: the kernel reads it only under other function "
                                   "constant values"
                                 : "inactive: the kernel never reads it");
      } else {
        argument(arg);
      }
    }
    threadgroup_memory();
    return std::move(reports_);
  }

 private:
  void fail(CheckId id, std::string message, std::string memory = {}) {
    report::Report r;
    r.check = id;
    r.kernel = kernel_ != nullptr ? kernel_->name : "";
    if (kernel_ != nullptr) r.site = {kernel_->source_file, kernel_->source_line, kernel_->name};
    r.memory = std::move(memory);
    r.message = std::move(message);
    reports_.push_back(std::move(r));
  }

  // Whether the host bound something at `arg`'s index (an inactive argument may be bound or not,
  // as in Metal; bound, it is checked as any other).
  bool bound(const abi::ArgInfo& arg) const {
    switch (arg.kind) {
      case abi::ArgKind::DeviceBuffer:
      case abi::ArgKind::ConstantBuffer:
        return arg.index < d_.buffers.size() && d_.buffers[arg.index].buffer;
      case abi::ArgKind::Threadgroup:
        return arg.index < d_.threadgroup_set.size() && d_.threadgroup_set[arg.index];
      case abi::ArgKind::Texture: return arg.index < d_.textures.size() && d_.textures[arg.index];
      case abi::ArgKind::Sampler: return arg.index < d_.samplers.size() && d_.samplers[arg.index];
      case abi::ArgKind::Builtin: return true;
    }
    return true;
  }

  // What an absent buffer argument (one whose function constant removes it, or one the kernel
  // never reads, left unbound) points at: read-only zeros of its own (64 KiB per buffer index),
  // registered as a zero-length range. Metal folds function constants when it makes the
  // pipeline, so a load from an absent argument whose value is unused is dead code there; here
  // the constants are read at run time and the load happens (MLX's steel GEMM reads
  // `addmm_params->alpha` before testing `use_out_source`; Clang hoists sdpa_vector's
  // `constant int&` loads above `if (bool_mask)`). Reads give 0, unreported; a write faults and
  // is a bounds.device report naming the argument.
  void absent_argument(const abi::ArgInfo& arg, const char* why) {
    const bool buffer =
        arg.kind == abi::ArgKind::DeviceBuffer || arg.kind == abi::ArgKind::ConstantBuffer;
    if (!buffer || arg.index >= abi::kMaxBufferBindings) return;
    char* origin = absent_zeros() + size_t(arg.index) * kAbsentBytes;
    req_.args.buffers[arg.index] = origin;
    req_.memory.push_back(
        {"buffer(" + std::to_string(arg.index) + ") '" + arg.name + "' (absent: " + why + ")",
         origin, origin, origin, origin + kAbsentBytes, nullptr, nullptr});
  }

  // As many as the argument-reads pass assumes a load may reach without being a use of the
  // argument (simt/abi/constant_conditions.h).
  static constexpr size_t kAbsentBytes = abi::conditions::kAbsentBytes;

  // The zeros of every buffer index, mapped read-only once for the process.
  static char* absent_zeros() {
    static char* const zeros = [] {
      void* p = mmap(nullptr, abi::kMaxBufferBindings * kAbsentBytes, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) throw std::runtime_error("metalsim: cannot map the absent arguments");
      return static_cast<char*>(p);
    }();
    return zeros;
  }

  static metalsim::Size3 size3(const MTL::Size& s) {
    return {uint32_t(s.width), uint32_t(s.height), uint32_t(s.depth)};
  }

  static std::string str(const MTL::Size& s) {
    return "(" + std::to_string(s.width) + "," + std::to_string(s.height) + "," +
           std::to_string(s.depth) + ")";
  }

  void grid() {
    const MTL::Size& grid = d_.by_threads ? d_.threads : d_.threadgroups;
    const MTL::Size& tg = d_.threads_per_threadgroup;
    const char* what = d_.by_threads ? "threads per grid" : "threadgroups per grid";
    if (grid.width == 0 || grid.height == 0 || grid.depth == 0)
      fail(CheckId::api_empty_grid, std::string(what) + " " + str(grid) + " has a zero dimension");
    if (tg.width == 0 || tg.height == 0 || tg.depth == 0)
      fail(CheckId::api_empty_grid, "threads per threadgroup " + str(tg) + " has a zero dimension");
    const uint64_t threads = uint64_t(tg.width) * tg.height * tg.depth;
    const uint64_t limit = d_.pipeline->maxTotalThreadsPerThreadgroup();
    if (threads > limit)
      fail(CheckId::limit_threads,
           "threads per threadgroup " + str(tg) + " = " + std::to_string(threads) +
               " exceeds the pipeline's maximum of " + std::to_string(limit));
    req_.geometry = d_.by_threads ? abi::DispatchGeometry::for_threads(size3(grid), size3(tg))
                                  : abi::DispatchGeometry::for_threadgroups(size3(grid), size3(tg));
  }

  void argument(const abi::ArgInfo& arg) {
    const std::string where = "argument '" + std::string(arg.name) + "'";
    if (arg.kind == abi::ArgKind::Builtin) return;
    if (arg.kind == abi::ArgKind::Texture || arg.kind == abi::ArgKind::Sampler) {
      resource_argument(arg, where);
      return;
    }
    if (arg.index >= abi::kMaxBufferBindings) {
      fail(CheckId::api_misuse, where + " uses index " + std::to_string(arg.index) + ", over 30");
      return;
    }
    // A length of 0, set explicitly, is valid as in Metal (ggml sets it for kernels that never
    // touch their threadgroup argument); a kernel that reads or writes such a region faults there
    // and is reported. Never set at all is the host's mistake.
    if (arg.kind == abi::ArgKind::Threadgroup) {
      if (!d_.threadgroup_set[arg.index])
        fail(CheckId::api_unbound_buffer,
             where + " [[threadgroup(" + std::to_string(arg.index) +
                 ")]] has no length: call setThreadgroupMemoryLength(bytes, " +
                 std::to_string(arg.index) + ")",
             "threadgroup(" + std::to_string(arg.index) + ")");
      return;
    }
    buffer_argument(arg, where);
  }

  // [[texture(N)]], [[sampler(N)]]: texture_validation.cpp.
  void resource_argument(const abi::ArgInfo& arg, const std::string& where) {
    const bool texture = arg.kind == abi::ArgKind::Texture;
    const std::string slot =
        std::string(texture ? "texture(" : "sampler(") + std::to_string(arg.index) + ")";
    const auto problem = texture ? bind_texture(arg, d_, req_) : bind_sampler(arg, d_, req_);
    if (problem) fail(problem->check, where + " [[" + slot + "]] " + problem->message, slot);
  }

  void buffer_argument(const abi::ArgInfo& arg, const std::string& where) {
    const std::string slot = "buffer(" + std::to_string(arg.index) + ")";
    const MTL::BoundBuffer& b = d_.buffers[arg.index];
    if (!b.buffer) {
      fail(CheckId::api_unbound_buffer,
           where + " [[" + slot + "]] (" + arg.type +
               ") is not bound: call setBuffer or setBytes at index " + std::to_string(arg.index),
           slot);
      return;
    }
    const uint64_t length = b.buffer->length();
    if (b.offset > length) {
      fail(CheckId::api_offset,
           where + " is bound at offset " + std::to_string(b.offset) + ", past the end of its " +
               std::to_string(length) + "-byte buffer",
           slot);
      return;
    }
    if (arg.element_align > 1 && b.offset % arg.element_align != 0) {
      fail(CheckId::api_offset,
           where + " is bound at offset " + std::to_string(b.offset) + ", not a multiple of the " +
               std::to_string(arg.element_align) + "-byte alignment of " + arg.type,
           slot);
      return;
    }
    const uint64_t available = length - b.offset;
    if (arg.is_reference && available < arg.element_size) {
      fail(CheckId::api_offset,
           where + " (" + arg.type + ") needs " + std::to_string(arg.element_size) +
               " bytes but only " + std::to_string(available) + " are bound",
           slot);
      return;
    }
    if (b.from_set_bytes && arg.kind == abi::ArgKind::DeviceBuffer && !arg.is_const) {
      fail(CheckId::api_wrong_kind,
           where +
               " is a writable device buffer but was bound with setBytes; "
               "its writes would be lost",
           slot);
      return;
    }
    char* base = static_cast<char*>(b.buffer->contents()) + b.offset;
    req_.args.buffers[arg.index] = base;
    std::string name = slot + " '" + arg.name + "'";
    if (!b.buffer->labelText().empty()) name += " (" + b.buffer->labelText() + ")";
    const char* contents = static_cast<const char*>(b.buffer->contents());
    req_.memory.push_back({name, base, contents + length, b.buffer->guardBegin(),
                           b.buffer->guardEnd(), contents, b.buffer->extentBegin()});
  }

  void threadgroup_memory() {
    uint64_t total = kernel_->static_threadgroup_bytes;
    for (uint32_t i = 0; i < abi::kMaxThreadgroupBindings; ++i) {
      const NS::UInteger len = d_.threadgroup_set[i] ? d_.threadgroup_lengths[i] : 0;
      if (len % 16 != 0)
        fail(CheckId::api_misuse, "setThreadgroupMemoryLength(" + std::to_string(len) + ", " +
                                      std::to_string(i) + "): the length must be a multiple of 16");
      req_.threadgroup_lengths[i] = uint32_t(len);
      total += len;
    }
    if (total > profile_.maxThreadgroupMemoryLength)
      fail(CheckId::limit_threadgroup_memory,
           "threadgroup memory of " + std::to_string(total) + " bytes (" +
               std::to_string(kernel_->static_threadgroup_bytes) +
               " in kernel-scope variables) exceeds the device's " +
               std::to_string(profile_.maxThreadgroupMemoryLength) + " bytes");
    req_.threadgroup_memory_limit = uint32_t(profile_.maxThreadgroupMemoryLength);
  }

  const MTL::EncodedDispatch& d_;
  const MTL::DeviceProfile& profile_;
  abi::DispatchRequest& req_;
  const abi::KernelInfo* kernel_ = nullptr;
  std::vector<report::Report> reports_;
};

}  // namespace

DispatchTranslation translate_dispatch(const MTL::EncodedDispatch& dispatch,
                                       const MTL::DeviceProfile& profile) {
  DispatchTranslation t;
  t.problems = Translator(dispatch, profile, t.request).run();
  return t;
}

}  // namespace metalsim::host
