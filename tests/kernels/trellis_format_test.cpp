// The trellis format (Trellis document sections 1.2, 1.3, 4.2, 4.3, 5.2): packed bytes per tile,
// LSB-first layouts written out by hand, tile indexing, round trips with partial tiles, and the
// shape checks' messages.
#include <gtest/gtest.h>

#include "kernels/spec/inputs.h"
#include "kernels/trellis/trellis_format.h"
#include "kernels/trellis/trellis_quantizer.h"

namespace metalsim::kernels::trellis {
namespace {

QuantizerOptions options(uint32_t bits, uint32_t group_size, uint64_t sign_seed = 1) {
  QuantizerOptions o;
  o.bits = bits;
  o.group_size = group_size;
  o.sign_seed = sign_seed;
  return o;
}

TEST(TrellisFormat, PackedBytesPerTileAreTheDocumentsTable) {
  EXPECT_EQ(packed_bytes_per_tile(2), 64u);
  EXPECT_EQ(packed_bytes_per_tile(3), 96u);
  EXPECT_EQ(packed_bytes_per_tile(4), 128u);
}

// docs/kernels/trellis.md's storage table: per weight, the index bits, one float scale per group
// and column (32 / group_size), one float sign per row and per column (32 / N + 32 / K) and the
// grid's floats spread over the matrix.
TEST(TrellisFormat, BitsPerWeightAreTheStorageTable) {
  for (uint32_t bits : {2u, 3u, 4u})
    for (uint32_t group : {32u, 128u}) {
      TrellisShape s;
      s.K = s.N = 4096;
      s.bits = bits;
      s.group_size = group;
      const double weights = 4096.0 * 4096.0;
      const double expected =
          bits + 32.0 / group + 32.0 / 4096 + 32.0 / 4096 + 32.0 * s.n_levels / weights;
      EXPECT_NEAR(s.bits_per_weight(), expected, 1e-9) << bits << " bits, group " << group;
    }
}

TEST(TrellisFormat, TwoBitIndicesFillEachByteFromBitZero) {
  uint8_t tile[64] = {};
  const uint32_t indices[4] = {1, 2, 3, 0};  // bits 0-1, 2-3, 4-5, 6-7
  for (uint32_t i = 0; i < 4; ++i) pack_index(tile, i, 2, indices[i]);
  EXPECT_EQ(tile[0], 0b00'11'10'01);
  EXPECT_EQ(tile[1], 0);
}

TEST(TrellisFormat, FourBitIndicesPutTheFirstInTheLowNibble) {
  uint8_t tile[128] = {};
  pack_index(tile, 0, 4, 0xA);
  pack_index(tile, 1, 4, 0x5);
  pack_index(tile, 255, 4, 0x3);
  EXPECT_EQ(tile[0], 0x5A);
  EXPECT_EQ(tile[127], 0x30);
}

TEST(TrellisFormat, ThreeBitIndicesCrossByteBoundaries) {
  uint8_t tile[96] = {};
  const uint32_t indices[8] = {1, 2, 3, 4, 5, 6, 7, 0};  // sum of idx_i << 3i = 0x1F58D1
  for (uint32_t i = 0; i < 8; ++i) pack_index(tile, i, 3, indices[i]);
  EXPECT_EQ(tile[0], 0xD1);
  EXPECT_EQ(tile[1], 0x58);
  EXPECT_EQ(tile[2], 0x1F);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(unpack_index(tile, i, 3), indices[i]) << "index " << i;
  pack_index(tile, 255, 3, 5);  // the last index ends on the tile's last bit
  EXPECT_EQ(tile[95], 5u << 5);
}

TEST(TrellisFormat, TileAddressIsSection43) {
  const TrellisShape s{.K = 40, .N = 40, .bits = 3};  // tiles_n = 3
  const TileAddress at = tile_address(s, 17, 35);     // tile (1, 2), local (1, 3)
  EXPECT_EQ(at.tile_offset, (1u * 3 + 2) * 96);
  EXPECT_EQ(at.idx_in_tile, 1u * 16 + 3);
}

TEST(TrellisFormat, PackUnpackRoundTripsWithPartialTilesAndKeepsPadding) {
  for (uint32_t bits : {2u, 3u, 4u}) {
    const TrellisShape s{.K = 33, .N = 17, .bits = bits};
    spec::InputGenerator gen(bits);
    std::vector<uint8_t> indices(size_t(s.K) * s.N);
    for (uint8_t& i : indices) i = uint8_t(gen.next_u64() >> (64 - bits));
    const uint32_t pad = (1u << bits) - 1;
    const std::vector<uint8_t> packed = pack_indices(s, indices, [pad] { return pad; });
    ASSERT_EQ(packed.size(), size_t(3) * 2 * packed_bytes_per_tile(bits));
    EXPECT_EQ(unpack_indices(s, packed), indices) << bits << " bits";
    const TileAddress corner = tile_address(s, 47, 31);  // the last padding position
    EXPECT_EQ(unpack_index(packed.data() + corner.tile_offset, corner.idx_in_tile, bits), pad);
  }
}

TEST(TrellisFormat, PackRejectsAnIndexWiderThanTheBits) {
  const TrellisShape s{.K = 1, .N = 1, .bits = 2};
  const std::vector<uint8_t> indices = {4};
  EXPECT_THROW(pack_indices(s, indices), std::invalid_argument);
}

// ------------------------------ section 5.2

TrellisWeights valid_weights() {
  const std::vector<float> dense(size_t(50) * 40, 0.5f);
  return quantize(dense, 50, 40, 1, options(3, 32));
}

std::string shape_error(const TrellisWeights& w) {
  try {
    check_shapes(w, "layer");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TrellisShapeChecks, ValidWeightsPass) { EXPECT_EQ(shape_error(valid_weights()), ""); }

TEST(TrellisShapeChecks, EachMismatchNamesItsDimension) {
  struct Case {
    std::function<void(TrellisWeights&)> break_it;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](auto& w) { w.packed_dims[0] = 3; },
       "layer: packed_indices.shape[0] = 3, but tiles_k = ceil(K / 16) = 4 for K = 50"},
      {[](auto& w) { w.packed_dims[1] = 2; },
       "layer: packed_indices.shape[1] = 2, but tiles_n = ceil(N / 16) = 3 for N = 40"},
      {[](auto& w) { w.packed_dims[2] = 128; },
       "layer: packed_indices.shape[2] = 128, but packed_bytes_per_tile(3) = 96"},
      {[](auto& w) { w.packed.pop_back(); },
       "layer: packed_indices holds 1151 bytes, but 1 expert(s) of shape [4, 3, 96] need 1152"},
      {[](auto& w) { w.scales_dims[0] = 1; },
       "layer: scales.shape[0] = n_groups = 1, but ceil(K / group_size) = 2 for K = 50, group_size "
       "= 32"},
      {[](auto& w) { w.scales_dims[1] = 41; }, "layer: scales.shape[1] = 41, but N = 40"},
      {[](auto& w) { w.scales.resize(40); },
       "layer: scales holds 40 values, but 1 expert(s) of shape [2, 40] need 80"},
      {[](auto& w) { w.grid.pop_back(); }, "layer: grid has 7 values, but n_levels = 8"},
      {[](auto& w) { w.su.pop_back(); }, "layer: su has 49 values, but K = 50"},
      {[](auto& w) { w.sv.push_back(1); }, "layer: sv has 41 values, but N = 40"},
      {[](auto& w) { w.shape.bits = 5; }, "layer: bits = 5: only 2, 3 and 4 are supported"},
      {[](auto& w) { w.shape.group_size = 0; }, "layer: group_size = 0"},
  };
  for (const Case& c : cases) {
    TrellisWeights w = valid_weights();
    c.break_it(w);
    EXPECT_EQ(shape_error(w), c.message);
  }
}

TEST(TrellisShapeChecks, KAndNNeedNotBeTileMultiples) {
  for (uint32_t k : {1u, 15u, 17u, 100u})
    for (uint32_t n : {1u, 15u, 17u, 65u}) {
      const std::vector<float> dense(size_t(k) * n, 1.0f);
      EXPECT_EQ(shape_error(quantize(dense, k, n, 1, options(2, 32))), "") << k << " x " << n;
    }
}

}  // namespace
}  // namespace metalsim::kernels::trellis
