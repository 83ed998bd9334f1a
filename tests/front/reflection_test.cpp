// Kernel signatures -> the reflection table, and the entry the front generates.
#include "front_test_util.h"

namespace metalsim::front {
namespace {

using testing::contains;
using testing::translate;

const char* kAttention =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct P { uint n; };\n"
    "[[max_total_threads_per_threadgroup(256)]]\n"
    "kernel void k(device const half* q [[buffer(0)]],\n"
    "              constant P& p [[buffer(4)]],\n"
    "              threadgroup float* s [[threadgroup(0)]],\n"
    "              device atomic_uint* counter [[buffer(ARG_COUNTER)]],\n"
    "              uint3 tid [[thread_position_in_threadgroup]],\n"
    "              ushort2 tg [[threadgroup_position_in_grid]],\n"
    "              uint lane [[thread_index_in_simdgroup]]) {\n"
    "}\n";

TEST(FrontReflection, EveryArgumentKind) {
  auto r = translate(kAttention);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels.size(), 1u);
  const KernelDecl& k = r.ctx.kernels[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.line, 5);
  EXPECT_EQ(k.max_total_threads, "256");
  ASSERT_EQ(k.args.size(), 7u);

  EXPECT_EQ(k.args[0].kind, ArgKind::DeviceBuffer);
  EXPECT_EQ(k.args[0].index, "0");
  EXPECT_EQ(k.args[0].type, "device const half*");
  EXPECT_EQ(k.args[0].element_type, "const half");
  EXPECT_TRUE(k.args[0].is_const);
  EXPECT_FALSE(k.args[0].is_reference);

  EXPECT_EQ(k.args[1].kind, ArgKind::ConstantBuffer);
  EXPECT_EQ(k.args[1].element_type, "const P");
  EXPECT_TRUE(k.args[1].is_const);
  EXPECT_TRUE(k.args[1].is_reference);

  EXPECT_EQ(k.args[2].kind, ArgKind::Threadgroup);
  EXPECT_EQ(k.args[2].index, "0");
  EXPECT_EQ(k.args[2].element_type, "float");

  EXPECT_EQ(k.args[3].index, "ARG_COUNTER");
  EXPECT_FALSE(k.args[3].is_const);

  EXPECT_EQ(k.args[4].kind, ArgKind::Builtin);
  EXPECT_EQ(k.args[4].builtin, "thread_position_in_threadgroup");
  EXPECT_EQ(k.args[4].builtin_components, 3);
  EXPECT_EQ(k.args[4].builtin_scalar, "uint");
  EXPECT_EQ(k.args[5].builtin_components, 2);
  EXPECT_EQ(k.args[5].builtin_scalar, "ushort");
  EXPECT_EQ(k.args[6].builtin_components, 1);
}

TEST(FrontReflection, EntryBindsAndWalksLanes) {
  auto r = translate(kAttention);
  EXPECT_TRUE(contains(r.code, "auto* ms_p0 = static_cast<const half*>(ms_a.buffers[0]);"));
  EXPECT_TRUE(contains(r.code, "auto& ms_p1 = *static_cast<const P*>(ms_a.buffers[4]);"));
  EXPECT_TRUE(contains(r.code, "auto* ms_p2 = static_cast<float*>(ms_a.threadgroup[0]);"));
  EXPECT_TRUE(contains(r.code,
                       "while (ms_c.next()) k(ms_p0, ms_p1, ms_p2, ms_p3, "
                       "::metalsim::generated::builtin_cast<uint3, uint, 3>"
                       "(ms_c.value(::metalsim::abi::Builtin::thread_position_in_threadgroup))"));
  EXPECT_TRUE(contains(r.code, ".max_total_threads_per_threadgroup = static_cast<uint32_t>(256)"));
  EXPECT_TRUE(contains(r.code, "ms_inst_k{std::type_identity<ms_kernel_k>{}, \"k\"};"));
  EXPECT_TRUE(contains(r.code, "#line 5 \"t.metal\"\nstruct ms_kernel_k {"));
}

// The lane body (docs/lanes.md): the entry's bindings, and one call whose built-ins come from the
// lane-loop state for lane ms_lane; annotated for the pass, and referenced by the KernelInfo.
TEST(FrontReflection, LaneBodyBindsAndCallsForOneLane) {
  auto r = translate(kAttention);
  EXPECT_TRUE(contains(r.code, "[[clang::annotate(\"metalsim.lanes.body\")]]\n"));
  EXPECT_TRUE(contains(r.code,
                       "static void lane_body(const ::metalsim::abi::BoundArgs& ms_a, "
                       "const ::metalsim::engine::LaneLoopState& ms_s, uint32_t ms_lane) {"));
  EXPECT_TRUE(contains(r.code,
                       "    k(ms_p0, ms_p1, ms_p2, ms_p3, "
                       "::metalsim::generated::builtin_cast<uint3, uint, 3>"
                       "(ms_s.value(::metalsim::abi::Builtin::thread_position_in_threadgroup, "
                       "ms_lane))"));
  EXPECT_TRUE(contains(r.code, ".lane_body = &lane_body}"));
}

// The entry is marked for the access-check pass, which copies it into the kernel's fast variant
// (simt/instrument/fast_variant.h).
TEST(FrontReflection, EntryIsMarkedForTheFastVariant) {
  auto r = translate(kAttention);
  const size_t mark = r.code.find("[[clang::annotate(\"metalsim.kernel.entry\")]]\n");
  const size_t entry = r.code.find("static void entry(const ::metalsim::abi::BoundArgs& ms_a, ");
  ASSERT_NE(mark, std::string::npos) << r.code;
  ASSERT_NE(entry, std::string::npos) << r.code;
  // The mark is the entry's own: nothing but a #line directive stands between them.
  ASSERT_LT(mark, entry);
  EXPECT_EQ(r.code.substr(mark, entry - mark).find(';'), std::string::npos) << r.code;
}

TEST(FrontReflection, TemplateKernelStructIsATemplate) {
  auto r = translate(
      "template <typename T, int N = 4>\n[[kernel]] void tk(device T* x [[buffer(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  const KernelDecl& k = r.ctx.kernels.at(0);
  EXPECT_TRUE(k.is_template);
  EXPECT_EQ(k.template_params, "typename T, int N = 4");
  ASSERT_EQ(k.template_arg_names.size(), 2u);
  EXPECT_TRUE(contains(
      r.code, "template <typename T, int N = 4>\n#line 2 \"t.metal\"\nstruct ms_kernel_tk {"));
  EXPECT_TRUE(contains(r.code, "while (ms_c.next()) tk<T, N>(ms_p0)"));
  EXPECT_TRUE(contains(r.code, "    tk<T, N>(ms_p0);\n"));  // the lane body's call
  EXPECT_FALSE(contains(r.code, "ms_inst_tk"));
}

TEST(FrontReflection, HostNameOnPlainKernelRenames) {
  auto r =
      translate("[[host_name(\"renamed\")]] kernel void k(device float* x [[buffer(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "kernel_selected(\"renamed\")> ms_inst_k"));
  EXPECT_TRUE(contains(r.code, "ms_inst_k{std::type_identity<ms_kernel_k>{}, \"renamed\"};"));
}

// `[[buffer(N), function_constant(c)]]`: the argument is reflected with its condition.
TEST(FrontReflection, FunctionConstantOnAnArgumentIsItsCondition) {
  auto r = translate(
      "constant bool has_b [[function_constant(0)]];\n"
      "kernel void k(device float* a [[buffer(0)]],\n"
      "              device float* b [[buffer(1), function_constant(has_b)]]) {}\n");
  ASSERT_EQ(r.error, "");
  const KernelDecl& k = r.ctx.kernels.at(0);
  ASSERT_EQ(k.args.size(), 2u);
  EXPECT_EQ(k.args[0].active_if, "");
  EXPECT_EQ(k.args[1].active_if, "has_b");
  EXPECT_TRUE(contains(r.code, ".active = []() -> bool { return static_cast<bool>(has_b); }}"))
      << r.code;
}

TEST(FrontReflection, BuffersWithoutAttributeTakeTheLowestFreeIndices) {
  // ggml's style: `constant args & args, device const char * src0, ...` with no [[buffer]].
  auto r = translate(
      "kernel void kernel_add(constant Args & args, device const char * src0, device char * dst "
      "[[buffer(0)]],\n"
      "                       device char * src1, uint3 tgpig[[threadgroup_position_in_grid]]) "
      "{}\n");
  ASSERT_EQ(r.error, "");
  const KernelDecl& k = r.ctx.kernels.at(0);
  EXPECT_EQ(k.args[0].index, "1");
  EXPECT_EQ(k.args[0].kind, ArgKind::ConstantBuffer);
  EXPECT_EQ(k.args[1].index, "2");
  EXPECT_EQ(k.args[2].index, "0");
  EXPECT_EQ(k.args[3].index, "3");
  EXPECT_EQ(k.args[4].builtin, "threadgroup_position_in_grid");
  EXPECT_TRUE(
      contains(r.code, "void kernel_add(const Args & args, const char * src0, char * dst ,"));
}

TEST(FrontReflection, KernelDeclarationWithoutBodyIsNotRegistered) {
  auto r = translate("kernel void k(device float* x [[buffer(0)]]);\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(r.ctx.kernels.empty());
  EXPECT_TRUE(contains(r.code, "void k( float* x );"));
}

TEST(FrontReflection, ArrayParameterIsAPointer) {
  auto r = translate(
      "template <int D> kernel void k(constant const size_t strides[2] [[buffer(3)]],\n"
      "                               device float out[D] [[buffer(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels.size(), 1u);
  const KernelDecl& k = r.ctx.kernels[0];
  ASSERT_EQ(k.args.size(), 2u);
  EXPECT_EQ(k.args[0].name, "strides");
  EXPECT_EQ(k.args[0].kind, ArgKind::ConstantBuffer);
  EXPECT_EQ(k.args[0].type, "constant const size_t*");
  EXPECT_EQ(k.args[0].element_type, "const size_t");
  EXPECT_FALSE(k.args[0].is_reference);
  EXPECT_EQ(k.args[1].name, "out");
  EXPECT_EQ(k.args[1].kind, ArgKind::DeviceBuffer);
  EXPECT_EQ(k.args[1].element_type, "float");
}

TEST(FrontReflection, MultiDimensionalArrayParameterIsAnError) {
  auto r = translate("kernel void k(constant const int m[2][3] [[buffer(0)]]) {}\n");
  EXPECT_EQ(r.error,
            "t.metal:1: error: kernel parameter #0: a multi-dimensional array parameter is not "
            "supported");
}

// ------------------------------ ggml-metal.metal shapes
// A function-pointer template parameter is named inside its first parentheses, and its parameter
// list's address spaces are erased in the generated entry's template header.
TEST(FrontReflection, FunctionPointerTemplateParameter) {
  auto r = translate(
      "template <short r, typename q_t, void (*deq)(device const q_t *, short, thread float4 &)>\n"
      "kernel void k(device float* p [[buffer(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels.size(), 1u);
  EXPECT_EQ(r.ctx.kernels[0].template_arg_names, (std::vector<std::string>{"r", "q_t", "deq"}));
  EXPECT_EQ(r.ctx.kernels[0].template_params,
            "short r, typename q_t, void (*deq)( const q_t *, short, float4 &)");
}

// A kernel template right after an explicit instantiation (already replaced by a registration)
// still starts at its `template <...>`.
TEST(FrontReflection, KernelTemplateAfterInstantiation) {
  auto r = translate(
      "template <typename T> kernel void a(device T* p [[buffer(0)]]) {}\n"
      "template [[host_name(\"a_f\")]] kernel decltype(a<float>) a<float>;\n"
      "template <typename T0, typename T1>\n"
      "kernel void b(device T0* p [[buffer(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels.size(), 2u);
  EXPECT_TRUE(r.ctx.kernels[1].is_template);
  EXPECT_EQ(r.ctx.kernels[1].template_arg_names, (std::vector<std::string>{"T0", "T1"}));
}

// `device const void*` (ggml's kernel_argmax) has no size: the entry asks the runtime
// (rt::element_size, 0 for void) instead of writing sizeof(const void).
TEST(FrontReflection, VoidPointeeSizeIsAskedOfTheRuntime) {
  auto r = translate("kernel void k(device const void* x [[buffer(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "::metalsim::generated::element_size<const void>()"));
}

// Textures and samplers (docs/textures.md): any parameter names, the access qualifier as a
// template argument, indices as expressions, next to buffers whose implicit index they do not
// take.
const char* kTextures =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void k(texture2d<float, access::read> source [[texture(0)]],\n"
    "              texture2d<half, access::write> out [[texture(T_OUT + 1)]],\n"
    "              device const float* w,\n"
    "              texture_buffer<uint, access::read_write> tb [[texture(2)]],\n"
    "              sampler linear_clamp [[sampler(3)]],\n"
    "              uint2 gid [[thread_position_in_grid]]) {\n"
    "}\n";

TEST(FrontReflection, TexturesAndSamplers) {
  auto r = translate(kTextures);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels.size(), 1u);
  const KernelDecl& k = r.ctx.kernels[0];
  ASSERT_EQ(k.args.size(), 6u);
  EXPECT_EQ(k.args[0].kind, ArgKind::Texture);
  EXPECT_EQ(k.args[0].name, "source");
  EXPECT_EQ(k.args[0].index, "0");
  EXPECT_EQ(k.args[0].type, "texture2d<float, access::read>");
  EXPECT_EQ(k.args[1].kind, ArgKind::Texture);
  EXPECT_EQ(k.args[1].index, "T_OUT + 1");
  EXPECT_EQ(k.args[2].kind, ArgKind::DeviceBuffer);
  EXPECT_EQ(k.args[2].index, "0");  // the lowest buffer index: textures have their own table
  EXPECT_EQ(k.args[3].kind, ArgKind::Texture);
  EXPECT_EQ(k.args[4].kind, ArgKind::Sampler);
  EXPECT_EQ(k.args[4].name, "linear_clamp");
  EXPECT_EQ(k.args[4].index, "3");
  // The entry makes each object from the dispatch's binding; the lane body passes its lane.
  EXPECT_TRUE(contains(r.code,
                       "::std::remove_cvref_t<texture2d<float, access::read>> ms_p0("
                       "ms_a.textures[0], static_cast<uint32_t>(0), "
                       "::metalsim::abi::kUnknownLane);"))
      << r.code;
  EXPECT_TRUE(contains(r.code,
                       "ms_a.textures[T_OUT + 1], static_cast<uint32_t>(T_OUT + 1), "
                       "ms_lane);"))
      << r.code;
  EXPECT_TRUE(contains(r.code, "::std::remove_cvref_t<sampler> ms_p4(ms_a.samplers[3]);"))
      << r.code;
  EXPECT_TRUE(contains(r.code, ".kind = ::metalsim::abi::ArgKind::Sampler"));
  EXPECT_TRUE(contains(r.code,
                       ".texture = ::std::remove_cvref_t<texture_buffer<uint, "
                       "access::read_write>>::ms_reflection"))
      << r.code;
}

TEST(FrontReflection, TextureKernelTemplate) {
  auto r = translate(
      "template <typename T>\n"
      "kernel void copy(texture2d<T, access::read> a [[texture(0)]],\n"
      "                 texture2d<T, access::write> b [[texture(1)]],\n"
      "                 uint2 gid [[thread_position_in_grid]]) { b.write(a.read(gid), gid); }\n"
      "template [[host_name(\"copy_half\")]] kernel void copy<half>(\n"
      "    texture2d<half, access::read>, texture2d<half, access::write>, uint2);\n");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels.size(), 1u);
  EXPECT_EQ(r.ctx.kernels[0].args[1].type, "texture2d<T, access::write>");
  EXPECT_TRUE(contains(r.code, "ms_kernel_pick_copy<half>()")) << r.code;
}

}  // namespace
}  // namespace metalsim::front
