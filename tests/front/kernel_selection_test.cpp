// metalsim_add_metal_library(... KERNELS pattern...):
// tests/front/metal/front_kernel_selection.metal is built with KERNELS "selection_picked_*"
// "selection_plain_kept"; the registry holds exactly the matching instances (the left-out template
// instance would not even compile).
#include <gtest/gtest.h>

#include "simt/abi/kernel.h"
#include "simt/engine/generated_code.h"

namespace {

using metalsim::abi::KernelRegistry;
using metalsim::generated::glob_matches;

TEST(KernelSelection, OnlyMatchingInstancesAreRegistered) {
  EXPECT_NE(KernelRegistry::find("selection_picked_float"), nullptr);
  EXPECT_NE(KernelRegistry::find("selection_picked_int"), nullptr);
  EXPECT_NE(KernelRegistry::find("selection_plain_kept"), nullptr);
  EXPECT_EQ(KernelRegistry::find("selection_left_out_short"), nullptr);
  EXPECT_EQ(KernelRegistry::find("selection_plain_dropped"), nullptr);
}

TEST(KernelSelection, GlobMatchesWholeNames) {
  static_assert(glob_matches("a*c", "abbc"));
  EXPECT_TRUE(glob_matches("*", ""));
  EXPECT_TRUE(glob_matches("rms*float32", "rms_loopedfloat32"));
  EXPECT_TRUE(glob_matches("*_f32", "kernel_mul_mv_q4_K_f32"));
  EXPECT_FALSE(glob_matches("rms*", "layer_norm"));
  EXPECT_FALSE(glob_matches("abc", "abcd"));  // no implicit trailing '*'
  EXPECT_FALSE(glob_matches("abc", "ab"));
}

}  // namespace
