// One test group per rewrite rule: MSL snippet in, expected C++ out.
#include "front_test_util.h"

namespace metalsim::front {
namespace {

using testing::body;
using testing::contains;
using testing::translate;

// ------------------------------ literals
TEST(FrontLiterals, HalfSuffixBecomesHalfConstruction) {
  auto r = translate("float a = 1.0h + 1h - .5h * 2e-3H; int b = 0x1Fh; float c = 1.0f;\n");
  EXPECT_EQ(
      body(r.code),
      "float a = half(1.0) + half(1) - half(.5) * half(2e-3); int b = 0x1Fh; float c = 1.0f;\n");
}

// ------------------------------ range designators
TEST(FrontRangeDesignators, ExpandedToPositionalList) {
  auto r = translate("const int a[6] = { [0 ... 2] = 7, [4] = 1, 9 };\n");
  EXPECT_EQ(body(r.code), "const int a[6] = { 7, 7, 7, {}, 1, 9 };\n");
}

TEST(FrontRangeDesignators, ConstantExpressionBounds) {
  auto r = translate("float a[4] = { [0 ... (2*2)-1] = 1.0f };\n");
  EXPECT_EQ(body(r.code), "float a[4] = { 1.0f, 1.0f, 1.0f, 1.0f };\n");
}

TEST(FrontRangeDesignators, LambdaCaptureIsNotADesignator) {
  auto r = translate("void f() { [&]() { }(); }\n");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(body(r.code), "void f() { [&]() { }(); }\n");
}

TEST(FrontRangeDesignators, NonConstantBoundIsAnError) {
  auto r = translate("\nint a[4] = { [0 ... N-1] = 1 };\n");
  EXPECT_EQ(
      r.error,
      "t.metal:2: error: range designator bound is not an integer constant the front can evaluate");
}

// ggml: `float sumf[r1ptg] = { [ 0 ... r1ptg - 1 ] = 0.0f };` in a template, bound a template
// parameter.
TEST(FrontRangeDesignators, NamedBoundInLocalArrayBecomesFill) {
  auto r = translate(
      "template <short N> void f() {\n  float a[N] = { [0 ... N-1] = 2.0f, [N-1] = 1 };\n}\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code),
            "template <short N> void f() {\n"
            "float a[N] ={}; ::metalsim::generated::fill_range( a,0, N-1,( 2.0f)); a [N-1]=( 1);\n"
            "}\n");
}

TEST(FrontRangeDesignators, NamedBoundWithPositionalElementIsAnError) {
  auto r = translate("void f() {\n  float a[N] = { [0 ... N-1] = 2.0f, 3 };\n}\n");
  EXPECT_EQ(r.error,
            "t.metal:2: error: a range designator with a non-constant bound cannot be mixed with "
            "positional elements");
}

// ------------------------------ address spaces
TEST(FrontAddressSpace, WordsErasedConstantBecomesConst) {
  auto r = translate(
      "void f(device float* a, constant float* b, constant const float* c, thread float& d,\n"
      "       threadgroup half* e, const constant int& g) {}\n"
      "constant float kPi = 3.14f;\n");
  EXPECT_EQ(body(r.code),
            "void f( float* a, const float* b, const float* c, float& d,\n"
            "half* e, const int& g) {}\n"
            "const float kPi = 3.14f;\n");
}

TEST(FrontAddressSpace, ThreadgroupAttributeIsNotMangled) {
  auto r = translate("kernel void k(threadgroup float* s [[threadgroup(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "void k( float* s ) {}"));
  EXPECT_TRUE(contains(r.code, "ms_a.threadgroup[0]"));
}

TEST(FrontAddressSpace, CastsAndTemplateArguments) {
  auto r = translate(
      "void f(device char* p) { auto q = (device float*)p; auto r = static_cast<threadgroup "
      "int*>(0); }\n");
  EXPECT_EQ(body(r.code),
            "void f( char* p) { auto q = ( float*)p; auto r = static_cast< int*>(0); }\n");
}

TEST(FrontAddressSpaceOverloads, IdenticalBodiesKeepOne) {
  auto r = translate(
      "template <typename T> void load(device T* p, thread T& v) { v = p[0]; }\n"
      "template <typename T> void load(threadgroup T* p, thread T& v) { v = p[0]; }\n"
      "void use(device float* a, threadgroup float* b) { float x; load(a, x); load(b, x); }\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code),
            "template <typename T> void load( T* p, T& v) { v = p[0]; }\n"
            "void use( float* a, float* b) { float x; load(a, x); load(b, x); }\n");
}

TEST(FrontAddressSpaceOverloads, DifferentBodiesAreAnError) {
  auto r = translate(
      "void f(device float* p) { p[0] = 1; }\n"
      "void f(threadgroup float* p) { p[0] = 2; }\n");
  EXPECT_TRUE(contains(r.error, "t.metal:2: error: overloads that differ only in address space"))
      << r.error;
}

TEST(FrontAddressSpaceOverloads, MemberFunctionsOnThisAddressSpace) {
  auto r = translate(
      "struct S { float v; float get() const device { return v; } float get() const thread { "
      "return v; } };\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code), "struct S { float v; float get() const { return v; } };\n");
}

// MLX's steel/utils/type_traits.h: one partial specialization per address space, one body.
TEST(FrontAddressSpaceOverloads, ClassSpecializationsOnAddressSpaceKeepOne) {
  auto r = translate(
      "template <typename T> struct pe {};\n"
      "template <typename T> struct pe<thread T*> { using type = T; };\n"
      "template <typename T> struct pe<device T*> { using type = T; };\n"
      "template <typename T> struct pe<constant T*> { using type = T; };\n"
      "template <typename T> struct pe<threadgroup T*> { using type = T; };\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code),
            "template <typename T> struct pe {};\n"
            "template <typename T> struct pe< T*> { using type = T; };\n"
            "template <typename T> struct pe<const T*> { using type = T; };\n");
}

TEST(FrontAddressSpaceOverloads, ClassSpecializationsWithDifferentBodiesAreAnError) {
  auto r = translate(
      "template <typename T> struct pe {};\n"
      "template <typename T> struct pe<device T*> { using type = T; };\n"
      "template <typename T> struct pe<threadgroup T*> { using type = int; };\n");
  EXPECT_EQ(r.error,
            "t.metal:3: error: class specializations that differ only in address space must have "
            "identical bodies: metalsim erases address spaces (docs/front.md)");
}

TEST(FrontAddressSpaceOverloads, ConstantConstEqualsDeviceConst) {
  // MLX utils.h: elem_to_loc(device const int*) and elem_to_loc(constant const int*).
  auto r = translate(
      "int f(device const int* p) { return p[0]; }\n"
      "int f(constant const int* p) { return p[0]; }\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code), "int f( const int* p) { return p[0]; }\n");
}

TEST(FrontAddressSpaceOverloads, ConstructorsOnThisAddressSpace) {
  // MLX complex.h / bf16.h: constructors qualified thread, device and constant; a constructor
  // cannot be const, so `constant` is dropped there (kept as const on other members).
  auto r = translate(
      "struct C { float r; C(float x) thread : r(x) {} C(float x) device : r(x) {} C(float x) "
      "constant : r(x) {}\n"
      "  float get() constant { return r; } };\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code),
            "struct C { float r; C(float x) : r(x) {}\nfloat get() const { return r; } };\n");
}

// ------------------------------ attributes
TEST(FrontAttributes, MslDroppedStandardKept) {
  auto r =
      translate("[[maybe_unused]] static int x; [[visible]] void f() { if (x) [[likely]] {} }\n");
  EXPECT_EQ(body(r.code), "[[maybe_unused]] static int x; void f() { if (x) [[likely]] {} }\n");
}

// ------------------------------ threadgroup variables
TEST(FrontThreadgroupVariables, KernelScopeArrayBecomesSharedStorage) {
  auto r = translate(
      "kernel void k(uint i [[thread_index_in_threadgroup]]) {\n  threadgroup float buf[64][2], "
      "n;\n  buf[i][0] = n;\n}\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code,
                       "using ms_tg_t_buf = float[64][2]; static "
                       "::metalsim::engine::ThreadgroupVariableSite ms_tg_site_buf{"));
  EXPECT_TRUE(contains(
      r.code,
      "\"buf\", \"t.metal\", 2}; ms_tg_t_buf& buf = "
      "*static_cast<ms_tg_t_buf*>(::metalsim::engine::threadgroup_variable(ms_tg_site_buf));"));
  EXPECT_TRUE(contains(r.code, "using ms_tg_t_n = float;"));
  EXPECT_TRUE(contains(r.code,
                       ".static_threadgroup_bytes = "
                       "::metalsim::generated::threadgroup_bytes({{sizeof(float[64][2]), "
                       "alignof(float[64][2])}, {sizeof(float), alignof(float)}})"));
  ASSERT_EQ(r.ctx.kernels.size(), 1u);
  ASSERT_EQ(r.ctx.kernels[0].threadgroup_variables.size(), 2u);
  EXPECT_TRUE(r.ctx.kernels[0].threadgroup_variables[0].static_size);
}

TEST(FrontThreadgroupVariables, LocalExtentIsNotCountedStatically) {
  auto r = translate(
      "kernel void k(uint i [[thread_index_in_threadgroup]]) {\n  constexpr int BN = 32;\n  "
      "threadgroup float a[BN];\n}\n");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels[0].threadgroup_variables.size(), 1u);
  EXPECT_FALSE(r.ctx.kernels[0].threadgroup_variables[0].static_size);
  EXPECT_TRUE(contains(r.code, "threadgroup_bytes({})"));
}

TEST(FrontThreadgroupVariables, HelperFunctionScopeAndPointersUntouched) {
  auto r = translate(
      "void h(threadgroup float* p) { threadgroup int cnt; threadgroup float* q = p; }\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "using ms_tg_t_cnt = int;"));
  EXPECT_TRUE(contains(r.code, "float* q = p;"));
}

// MLX's layer_norm: `threadgroup float local_buffer[SIMD_SIZE] = {0};`. Apple's compiler accepts
// it without running it; the storage stays uninitialised here too.
TEST(FrontThreadgroupVariables, InitializerIsDropped) {
  auto r = translate("void h() {\n  threadgroup int x = 0, y[4] = {f(1, 2), 0};\n  x = y[0];\n}\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "using ms_tg_t_x = int;"));
  EXPECT_TRUE(contains(r.code, "using ms_tg_t_y = int[4];"));
  EXPECT_FALSE(contains(r.code, "f(1, 2)"));
  EXPECT_TRUE(contains(r.code, "x = y[0];"));
}

TEST(FrontThreadgroupVariables, NamespaceScopeIsAnError) {
  auto r = translate("threadgroup int x;\n");
  EXPECT_EQ(
      r.error,
      "t.metal:1: error: threadgroup variables are only allowed in kernel and function bodies");
}

// ------------------------------ memory coherence
TEST(FrontAddressSpace, CoherenceQualifierErased) {
  auto r = translate(
      "void f(volatile coherent(system) device uint* p, coherent(device) device int* q) { "
      "coherent(p); }\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code), "void f(volatile uint* p, int* q) { coherent(p); }\n");
}

// ------------------------------ function constants
// MLX's fft.h: `STEEL_CONST bool inv_ [[function_constant(0)]];` with
// `#define STEEL_CONST static constant constexpr const`.
TEST(FrontFunctionConstants, DeclaredThroughASpecifierMacro) {
  auto r = translate(
      "#define MY_CONST static constant constexpr const\n"
      "MY_CONST int k_ [[function_constant(3)]];\n"
      "static constant constexpr const bool b_ [[function_constant(4)]];\n"
      "MY_CONST bool both_ = b_ && k_ > 1;\n"
      "MY_CONST int plain_ = 2;\n");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.function_constants.size(), 2u);
  EXPECT_EQ(r.ctx.function_constants[0].type, "int");
  EXPECT_EQ(r.ctx.function_constants[1].type, "bool");
  EXPECT_TRUE(contains(
      r.code, "const ::metalsim::generated::FunctionConstant<int> k_{static_cast<uint32_t>(3)};"));
  EXPECT_TRUE(contains(
      r.code, "const ::metalsim::generated::FunctionConstant<bool> b_{static_cast<uint32_t>(4)};"));
  EXPECT_TRUE(contains(r.code, "const ::metalsim::generated::DerivedConstant<bool> both_"));
  EXPECT_TRUE(contains(r.code, "MY_CONST int plain_ = 2;"));
}

TEST(FrontFunctionConstants, GlobalBecomesPerDispatchValue) {
  auto r = translate(
      "constant bool has_bias [[function_constant(0)]];\n"
      "constant short nsg [[function_constant(FC_BASE + 1)]];\n"
      "constant bool both = has_bias && is_function_constant_defined(nsg);\n"
      "constant int plain = 4;\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(
      body(r.code),
      "const ::metalsim::generated::FunctionConstant<bool> has_bias{static_cast<uint32_t>(0)};\n"
      "const ::metalsim::generated::FunctionConstant<short> nsg{static_cast<uint32_t>(FC_BASE + "
      "1)};\n"
      "const ::metalsim::generated::DerivedConstant<bool> both{+[]() -> bool { return has_bias && "
      "is_function_constant_defined(nsg); }};\n"
      "const int plain = 4;\n");
  ASSERT_EQ(r.ctx.function_constants.size(), 2u);
  EXPECT_EQ(r.ctx.function_constants[1].name, "nsg");
  EXPECT_EQ(r.ctx.function_constants[1].index, "FC_BASE + 1");
  EXPECT_EQ(r.ctx.function_constants[1].type, "short");
  // The table entry: name, index, type, size, then the declaration's file and line (2).
  const size_t entry = r.code.find(
      "{\"nsg\", static_cast<uint32_t>(FC_BASE + 1), \"short\", "
      "static_cast<uint32_t>(sizeof(short)), \"");
  ASSERT_NE(entry, std::string::npos) << r.code;
  EXPECT_EQ(r.code.substr(r.code.find('\n', entry) - 5, 5), ", 2},") << r.code;
}

// ------------------------------ plain kernels become inline
// A plain kernel is compiled only where its entry uses it, so a compile that registers other
// kernels of the file does not compile it (docs/front.md, "Building only some instances").
TEST(FrontKernels, PlainKernelDefinitionsBecomeInline) {
  auto r = translate(
      "kernel void a(device float* x [[buffer(0)]]) { x[0] = 1; }\n"
      "[[kernel]] void b(device float* x [[buffer(0)]]) { x[0] = 2; }\n"
      "[[host_name(\"c2\")]] kernel void c(device float* x [[buffer(0)]]) { x[0] = 3; }\n"
      "static kernel void d(device float* x [[buffer(0)]]) { x[0] = 4; }\n"
      "kernel void e(device float* x [[buffer(0)]]);\n"
      "template <typename T> kernel void f(device T* x [[buffer(0)]]) { x[0] = 5; }\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "\ninline void a( float* x ) { x[0] = 1; }")) << r.code;
  EXPECT_TRUE(contains(r.code, " inline void b( float* x ) { x[0] = 2; }")) << r.code;
  EXPECT_TRUE(contains(r.code, " inline void c( float* x ) { x[0] = 3; }")) << r.code;
  EXPECT_TRUE(contains(r.code, "\nstatic void d( float* x ) { x[0] = 4; }")) << r.code;
  EXPECT_TRUE(contains(r.code, " void e( float* x );")) << r.code;  // a declaration: as written
  EXPECT_FALSE(contains(r.code, "inline void e")) << r.code;
  EXPECT_TRUE(contains(r.code, "\ntemplate <typename T> void f( T* x )")) << r.code;
}

// ------------------------------ host_name instantiations
TEST(FrontHostName, ExplicitInstantiationBecomesRegistration) {
  auto r = translate(
      "template <typename T> [[kernel]] void f(device T* x [[buffer(0)]]) {}\n"
      "template [[host_name(\"f_float\")]] [[kernel]] decltype(f<float>) f<float>;\n"
      "template [[host_name(\"f_half\")]] kernel void f<half>(device half*, uint);\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "template <typename T>\n#line 1 \"t.metal\"\nstruct ms_kernel_f {"));
  EXPECT_TRUE(contains(r.code,
                       "static const ::metalsim::generated::SelectedKernelInstance<"
                       "::metalsim::generated::kernel_selected(\"f_float\")> "
                       "ms_inst_0{std::type_identity<decltype(ms_kernel_pick_f<float>())>{}, "
                       "\"f_float\"};"));
  EXPECT_TRUE(contains(
      r.code, "ms_inst_1{std::type_identity<decltype(ms_kernel_pick_f<half>())>{}, \"f_half\"};"));
  EXPECT_TRUE(contains(r.code, "ms_kernel_f<T> ms_kernel_pick_f();"));
}

TEST(FrontHostName, InstantiationMacroIsRewrittenInItsBody) {
  auto r = translate(
      "#define instantiate_kernel(name, func, ...) \\\n"
      "  template [[host_name(name)]] [[kernel]] decltype(func<__VA_ARGS__>) func<__VA_ARGS__>;\n"
      "int after;\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code,
                       "#define instantiate_kernel(name, func, ...) static const "
                       "::metalsim::generated::SelectedKernelInstance<"
                       "::metalsim::generated::kernel_selected(name)> "
                       "METALSIM_FRONT_CAT(ms_minst_, __COUNTER__){std::type_identity<decltype("
                       "ms_kernel_pick_ ## func<__VA_ARGS__>())>{}, name};\n\nint after;"))
      << r.code;
}

TEST(FrontHostName, PastedKernelNameInMacro) {
  auto r = translate(
      "#define instantiate(name, T, kind) \\\n"
      "  template [[host_name(name)]] [[kernel]] void op_##kind<T>(device T* x);\n"
      "int after;\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code,
                       "METALSIM_FRONT_CAT(ms_minst_, __COUNTER__){std::type_identity<decltype("
                       "ms_kernel_pick_ ## op_##kind<T>())>{}, name};"))
      << r.code;
}

// MLX's conv.metal names no template arguments: the parameter types decide them, as C++ does,
// through the kernel's deduction declaration.
TEST(FrontHostName, InstanceDeducedFromParameterTypes) {
  auto r = translate(
      "template <int N> struct P { int s[N]; };\n"
      "template <typename T, int N>\n"
      "[[kernel]] void k(const device T* in [[buffer(0)]], const constant P<N>* p [[buffer(1)]],\n"
      "                  uint i [[thread_position_in_grid]]) {}\n"
      "#define inst(name, itype, n) \\\n"
      "  template \\\n"
      "      [[host_name(\"k_\" #name \"_\" #n)]] [[kernel]] void \\\n"
      "      k(const device itype* in [[buffer(0)]], const constant P<n>* p [[buffer(1)]], \\\n"
      "        uint i [[thread_position_in_grid]]);\n"
      "inst(f32, float, 2)\n"
      "template [[host_name(\"k_i3\")]] [[kernel]] void k(const device int* in [[buffer(0)]],\n"
      "    const constant P<3>* p [[buffer(1)]], uint i [[thread_position_in_grid]]);\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code,
                       "ms_kernel_k<T, N> ms_kernel_deduce_k(void (*)(const T * in , const P < N > "
                       "* p , uint i));"));
  EXPECT_TRUE(contains(
      r.code,
      "std::type_identity<decltype(ms_kernel_deduce_ ## k(static_cast<void (*)(const itype * in , "
      "const P < n > * p , uint i)>(nullptr)))>{}, \"k_\" #name \"_\" #n}"));
  EXPECT_TRUE(contains(
      r.code,
      "{std::type_identity<decltype(ms_kernel_deduce_k(static_cast<void (*)(const int * in , "
      "const P < 3 > * p , uint i)>(nullptr)))>{}, \"k_i3\"};"));
}

// MLX's steel_gemm_masked.h: two kernel templates named block_masked_gemm; each has its own entry
// struct, and an instance reaches the one its template arguments fit.
TEST(FrontHostName, OverloadedKernelTemplatesHaveTheirOwnEntries) {
  auto r = translate(
      "template <typename T, typename M, int N> [[kernel]] void g(device T* x [[buffer(0)]]) {}\n"
      "template <typename T, int N, bool B = false> [[kernel]] void g(device T* x [[buffer(0)]]) "
      "{}\n"
      "template [[host_name(\"a\")]] [[kernel]] decltype(g<float, int, 2>) g<float, int, 2>;\n"
      "template [[host_name(\"b\")]] [[kernel]] decltype(g<float, 2, true>) g<float, 2, true>;\n");
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "struct ms_kernel_g {"));
  EXPECT_TRUE(contains(r.code, "struct ms_kernel_g_o2 {"));
  EXPECT_TRUE(contains(r.code, "ms_kernel_g<T, M, N> ms_kernel_pick_g();"));
  EXPECT_TRUE(contains(r.code, "ms_kernel_g_o2<T, N, B> ms_kernel_pick_g();"));
}

// MLX's sort.h: `typename CompareOp = LessThan<ValT>>`, the list closed by `>>`.
TEST(FrontReflection, TemplateListClosedByShiftToken) {
  auto r = translate(
      "template <typename T> struct Less {};\n"
      "template <typename T, typename Op = Less<T>>\n"
      "[[kernel]] void k(device T* x [[buffer(0)]]) {}\n");
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.ctx.kernels.size(), 1u);
  EXPECT_EQ(r.ctx.kernels[0].template_params, "typename T, typename Op = Less<T>");
  EXPECT_EQ(r.ctx.kernels[0].template_arg_names, (std::vector<std::string>{"T", "Op"}));
}

TEST(FrontHostName, OrdinaryExplicitInstantiationUntouched) {
  auto r =
      translate("template <typename T> T g(T x) { return x; }\ntemplate float g<float>(float);\n");
  EXPECT_TRUE(contains(r.code, "template float g<float>(float);"));
}

// ------------------------------ explicit specializations of member functions in the class
TEST(FrontMemberSpecializations, InClassSpecializationBecomesOverload) {
  auto r = translate(
      "struct Abs {\n"
      "  template <typename T> T operator()(T x) { return abs(x); }\n"
      "  template <> uint operator()(uint x) { return x; }\n"
      "  template <> static bool f(bool x) { return x; }\n"
      "};\n");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(body(r.code),
            "struct Abs {\n"
            "template <typename T> T operator()(T x) { return abs(x); }\n"
            "uint operator()(uint x) { return x; }\n"
            "static bool f(bool x) { return x; }\n"
            "};\n");
}

TEST(FrontMemberSpecializations, NamespaceScopeAndExplicitArgumentsUntouched) {
  const std::string src =
      "template <typename T> T g(T x) { return x; }\n"
      "template <> int g(int x) { return x + 1; }\n"
      "struct S {\n"
      "  template <typename T> static T v() { return T(0); }\n"
      "  template <> static int v<int>() { return 1; }\n"
      "  template <typename T> bool operator<(T x) { return false; }\n"
      "  template <> bool operator< <int>(int x) { return true; }\n"
      "  template <typename T> struct In {};\n"
      "  template <> struct In<int> {};\n"
      "};\n"
      "void h() { S s; s.operator< <int>(1); }\n";
  auto r = translate(src);
  ASSERT_EQ(r.error, "");
  EXPECT_TRUE(contains(r.code, "template <> int g(int x)"));
  EXPECT_TRUE(contains(r.code, "template <> static int v<int>()"));
  EXPECT_TRUE(contains(r.code, "template <> bool operator< <int>(int x)"));
  EXPECT_TRUE(contains(r.code, "template <> struct In<int> {};"));
}

}  // namespace
}  // namespace metalsim::front
