#pragma once
// Inactive arguments (docs/msl-coverage.md): which bindings a kernel's optimised code reads, as
// the argument-reads pass (simt/instrument/argument_reads.h) registered them for its entry. An
// argument the kernel never reads is inactive, as Metal's compiler makes it: its reflection says
// unused and a dispatch needs nothing bound there.
#include <cstdint>
#include <span>
#include <vector>

#include "simt/abi/kernel.h"

namespace metalsim::abi {

// Whether the bindings `kernel` reads are known: its library was compiled, optimised, with the
// argument-reads pass (not at -O0, not without the access-check plugin, not a hand-written
// kernel).
bool argument_reads_known(const KernelInfo& kernel);

// Whether `kernel`'s code may read `arg`'s binding under some function-constant values: true
// unless the pass found it never does (and for every built-in, which has no binding).
bool argument_read(const KernelInfo& kernel, const ArgInfo& arg);

// Whether `kernel`'s code may read `arg`'s binding in a pipeline whose function constants are
// `constants` (by index, null where unset): as above, and false also when every use the pass
// found of the binding runs only under a branch on function constants that these values do not
// take (a build-time kernel's `if (c) v += bias[i];` with c false), as Metal's specialisation
// drops it. A condition the values do not decide counts as taken.
bool argument_read(const KernelInfo& kernel, const ArgInfo& arg,
                   std::span<const void* const> constants);

// Whether `arg` is active in a pipeline of `kernel` whose function constants are `constants`: it
// exists (argument_exists) and the kernel reads it with those values.
bool argument_active(const KernelInfo& kernel, const ArgInfo& arg,
                     std::span<const void* const> constants);

// The function constants whose value `kernel`'s optimised code reads with no test that they are
// defined (is_function_constant_defined, or a program-scope constant with a default built on it):
// a pipeline must give each a value, as Metal's specialisation requires. Empty when the reads
// are not known (argument_reads_known).
std::vector<uint32_t> required_function_constants(const KernelInfo& kernel);

// Every function constant `kernel`'s code reads or tests (is_function_constant_defined), required
// or not, in index order: Metal makes a pipeline only of such a function specialised. Empty when
// the reads are not known.
std::vector<uint32_t> used_function_constants(const KernelInfo& kernel);

// In the constants the pass registers, an optional one's index carries this bit
// (simt/instrument/argument_reads.h's kOptionalConstant).
inline constexpr uint32_t kOptionalConstant = 0x80000000U;

}  // namespace metalsim::abi

// Called from the global constructor the argument-reads pass adds to each kernel module, once
// per entry: `count` (offset, size, condition) triples of the abi::BoundArgs bytes it reads, the
// `required_count` indices of the function constants it uses (kOptionalConstant set on those it
// does not require), and the conditions under which the reads are used: a triple's condition is
// conditions::kAlways or the position in `guards` of the number of uses, then per use the number
// of its atoms and the atoms, over the nodes in `nodes` (simt/abi/constant_conditions.h).
extern "C" void __metalsim_argument_reads_register(const void* entry, const uint32_t* ranges,
                                                   uint32_t count, const uint32_t* required,
                                                   uint32_t required_count, const uint32_t* guards,
                                                   const uint32_t* nodes);
