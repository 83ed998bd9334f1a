#pragma once
// Where an instruction came from, for reasons and summaries: "file.metal:42" from its debug
// location (the front's #line directives make it the .metal line), or from the
// std::source_location constant a sync point carries.
#include <string>

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Value.h>

namespace metalsim::lanes {

// The C string a constant global holds (clang's string literals), or "" when `v` is not one.
llvm::StringRef constant_c_string(const llvm::Value* v);

// "file:line" of `inst`'s debug location; empty when it has none.
std::string debug_site(const llvm::Instruction& inst);
// "file:line" of a std::source_location argument (a pointer to libstdc++'s constant
// {file, function, line, column}); empty when it is not such a constant.
std::string source_location_site(const llvm::Value* site);
// The best of the two for a call (its debug location, else its source_location argument
// `site`), else `fallback`.
std::string describe_site(const llvm::Instruction& inst, const llvm::Value* site,
                          const std::string& fallback);

}  // namespace metalsim::lanes
