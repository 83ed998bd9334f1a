// MSL's layout of setBytes structs and function constants (host/cli/msl_layout.h), against
// offsets worked out by hand from the MSL specification's rules:
//   scalar: size = alignment = sizeof (bool 1); vector T2/T4: size = alignment = n * sizeof(T);
//   T3: size = alignment = 4 * sizeof(T); packed_TN: size N * sizeof(T), alignment sizeof(T);
//   array: n * element size, the element's alignment; struct: each field at the next multiple of
//   its alignment, size rounded up to the largest alignment.
#include <gtest/gtest.h>

#include <cstring>

#include "host/cli/msl_layout.h"

namespace metalsim::cli::testing {
namespace {

MslType type(const std::string& text) {
  MslType t;
  EXPECT_TRUE(parse_msl_type(text, t)) << text;
  return t;
}

BytesField field(const std::string& t, std::vector<Expression> values = {}) {
  BytesField f;
  f.type = type(t);
  f.values = std::move(values);
  if (f.values.empty())
    for (size_t i = 0; i < f.type.values(); ++i) f.values.push_back(Expression::constant(0));
  return f;
}

BytesField nested(std::vector<BytesField> fields) {
  BytesField f;
  f.fields = std::move(fields);
  return f;
}

TEST(MslLayout, ScalarAndVectorSizesAndAlignments) {
  struct Row {
    const char* type;
    size_t size, align;
  };
  const Row rows[] = {
      {"bool", 1, 1},          {"char", 1, 1},           {"half", 2, 2},
      {"float", 4, 4},         {"long", 8, 8},           {"bool2", 2, 2},
      {"bool3", 4, 4},         {"char3", 4, 4},          {"short3", 8, 8},
      {"half3", 8, 8},         {"half4", 8, 8},          {"float2", 8, 8},
      {"float3", 16, 16},      {"uint3", 16, 16},        {"float4", 16, 16},
      {"long3", 32, 32},       {"packed_float3", 12, 4}, {"packed_half3", 6, 2},
      {"packed_uchar4", 4, 1}, {"float3[2]", 32, 16},    {"packed_float3[2]", 24, 4},
      {"uint[5]", 20, 4},
  };
  for (const Row& r : rows) {
    const SizeAlign sa = msl_size_align(type(r.type));
    EXPECT_EQ(sa.size, r.size) << r.type;
    EXPECT_EQ(sa.align, r.align) << r.type;
    EXPECT_EQ(type(r.type).name(), r.type);
  }
  MslType t;
  for (const char* bad : {"float5", "packed_float", "packed_bool2", "double", "uint[0]", "int[x]"})
    EXPECT_FALSE(parse_msl_type(bad, t)) << bad;
}

// The params struct of tests/cli/case_files/library/root/lsim/kernels/params.h:
//   uint3 dims                  0   (16, aligned 16)
//   float2 alpha_beta          16   (8, aligned 8)
//   bool relu                  24   (1)
//   packed_float3 bias3        28   (12, aligned 4: 25 rounds up to 28)
//   struct {float mul, add}    40   (8, aligned 4)
//   float clamp_range[2]       48   (8, aligned 4)
//   size 56 rounded up to the alignment 16: 64
TEST(MslLayout, TheGemvParamsStructByHand) {
  const std::vector<BytesField> fields = {field("uint3"),
                                          field("float2"),
                                          field("bool"),
                                          field("packed_float3"),
                                          nested({field("float"), field("float")}),
                                          field("float[2]")};
  const StructLayout l = layout_struct(fields);
  EXPECT_EQ(l.offsets, (std::vector<size_t>{0, 16, 24, 28, 40, 48}));
  EXPECT_EQ(l.size, 64u);
  EXPECT_EQ(l.align, 16u);
}

// The softmax args of params.h: eight 4-byte fields at 0, 4, ..., 28, then bool causal at 32;
// size 33 rounded up to the alignment 4: 36. And a struct whose bool is followed by a half3:
//   bool 0; half3 at 8 (aligned 8); char 16; size 17 rounded up to 8: 24.
TEST(MslLayout, BoolFieldsAndPaddingByHand) {
  std::vector<BytesField> args(8, field("int"));
  args.push_back(field("bool"));
  const StructLayout a = layout_struct(args);
  EXPECT_EQ(a.offsets.back(), 32u);
  EXPECT_EQ(a.size, 36u);
  const StructLayout b = layout_struct({field("bool"), field("half3"), field("char")});
  EXPECT_EQ(b.offsets, (std::vector<size_t>{0, 8, 16}));
  EXPECT_EQ(b.size, 24u);
}

// Values land where the layout says, each converted as C converts; padding stays zero.
TEST(MslLayout, PackWritesEachValueAtItsOffset) {
  const Scope scope = scope_of({{"n", 7}});
  const std::vector<BytesField> fields = {
      field("bool", {Expression::parse("n > 3")}),
      field("float3", {Expression::parse("n"), Expression::constant_float(0.5),
                       Expression::parse("n / 2.0")}),
      field("packed_short3",
            {Expression::constant(-1), Expression::constant(2), Expression::parse("n")}),
      field("half", {Expression::constant_float(1.5)})};
  const Bytes b = pack_struct(fields, scope);
  ASSERT_EQ(b.size(), 48u);  // bool 0, float3 16..32, packed_short3 32..38, half 38, size 40 -> 48
  EXPECT_EQ(b[0], 1);
  for (size_t i = 1; i < 16; ++i) EXPECT_EQ(b[i], 0) << "padding byte " << i;
  float f[3];
  std::memcpy(f, &b[16], sizeof f);
  EXPECT_EQ(f[0], 7.0f);
  EXPECT_EQ(f[1], 0.5f);
  EXPECT_EQ(f[2], 3.5f);
  int16_t s[3];
  std::memcpy(s, &b[32], sizeof s);
  EXPECT_EQ(s[0], -1);
  EXPECT_EQ(s[2], 7);
  _Float16 h;
  std::memcpy(&h, &b[38], sizeof h);
  EXPECT_EQ(float(h), 1.5f);
}

TEST(MslLayout, AFloatForAnIntegerFieldIsAnErrorNamingTheField) {
  BytesField f = field("int", {Expression::parse("n / 2.0")});
  f.path = "bytes[0].fields[3].value";
  try {
    pack_struct({f}, scope_of({{"n", 3}}));
    ADD_FAILURE() << "no error";
  } catch (const ExpressionError& e) {
    EXPECT_NE(std::string(e.what()).find("bytes[0].fields[3].value: gives 1.5, a float, for int"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace metalsim::cli::testing
