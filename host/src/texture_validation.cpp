#include "texture_validation.h"

#include <string>

namespace metalsim::host {
namespace {

using report::CheckId;

std::string kind_name(abi::TextureKind k) {
  switch (k) {
    case abi::TextureKind::texture1d: return "texture1d";
    case abi::TextureKind::texture2d: return "texture2d";
    case abi::TextureKind::texture_buffer: return "texture_buffer";
  }
  return "texture";
}

std::string type_name(MTL::TextureType t) {
  switch (t) {
    case MTL::TextureType1D: return "MTLTextureType1D";
    case MTL::TextureType2D: return "MTLTextureType2D";
    case MTL::TextureTypeTextureBuffer: return "MTLTextureTypeTextureBuffer";
    default: return "MTLTextureType " + std::to_string(t);
  }
}

std::string sample_name(abi::SampleKind k) {
  switch (k) {
    case abi::SampleKind::floating: return "float or normalized";
    case abi::SampleKind::sint: return "signed integer";
    case abi::SampleKind::uint: return "unsigned integer";
  }
  return "?";
}

const char* access_name(abi::TextureAccess a) {
  switch (a) {
    case abi::TextureAccess::sample: return "access::sample";
    case abi::TextureAccess::read: return "access::read";
    case abi::TextureAccess::write: return "access::write";
    case abi::TextureAccess::read_write: return "access::read_write";
  }
  return "?";
}

// The usage bits the kernel's access needs, and the first one the texture lacks ("" if none).
std::string missing_usage(abi::TextureAccess a, MTL::TextureUsage usage) {
  const bool reads = a != abi::TextureAccess::write;
  const bool writes = a == abi::TextureAccess::write || a == abi::TextureAccess::read_write;
  if (reads && (usage & MTL::TextureUsageShaderRead) == 0) return "MTLTextureUsageShaderRead";
  if (writes && (usage & MTL::TextureUsageShaderWrite) == 0) return "MTLTextureUsageShaderWrite";
  return "";
}

std::optional<BindingProblem> texture_problem(const abi::ArgInfo& arg, const MTL::Texture& t) {
  const abi::TextureArgInfo& want = arg.texture;
  const abi::TextureBinding& b = t.binding();
  if (b.kind != want.kind)
    return BindingProblem{
        CheckId::api_wrong_kind,
        "is a " + kind_name(want.kind) + " but the bound texture is " + type_name(t.textureType())};
  const abi::PixelFormatInfo format = abi::pixel_format_info(b.format);
  const abi::SampleKind holds = abi::sample_kind(format.component);
  if (holds != want.sample)
    return BindingProblem{CheckId::api_wrong_kind,
                          "(" + std::string(arg.type) + ") reads " + sample_name(want.sample) +
                              " components but the bound texture's pixel format " +
                              std::string(format.name) + " holds " + sample_name(holds) + " ones"};
  if (std::string usage = missing_usage(want.access, t.usage()); !usage.empty())
    return BindingProblem{CheckId::api_wrong_kind, "is used with " +
                                                       std::string(access_name(want.access)) +
                                                       " but the texture's usage lacks " + usage};
  return std::nullopt;
}

// The texture's pixels as one of the dispatch's memory ranges, as a buffer's are: initcheck
// restores them between its runs (a read_write texture would otherwise be updated twice).
void add_memory_range(const abi::ArgInfo& arg, const MTL::Texture& t, abi::DispatchRequest& req) {
  const MTL::Buffer& storage = *t.storageBuffer();
  std::string name = "texture(" + std::to_string(arg.index) + ") '" + arg.name + "'";
  if (!t.labelText().empty()) name += " (" + t.labelText() + ")";
  const char* origin = t.binding().data;
  req.memory.push_back({name, origin, origin + t.storageLength(), storage.guardBegin(),
                        storage.guardEnd(), static_cast<const char*>(storage.contents()),
                        storage.extentBegin()});
}

}  // namespace

std::optional<BindingProblem> bind_texture(const abi::ArgInfo& arg, const MTL::EncodedDispatch& d,
                                           abi::DispatchRequest& req) {
  if (arg.index >= abi::kMaxTextureBindings)
    return BindingProblem{CheckId::api_misuse,
                          "uses index " + std::to_string(arg.index) + ", over 30"};
  const MTL::Texture* t = d.textures[arg.index].get();
  if (t == nullptr)
    return BindingProblem{CheckId::api_unbound_buffer,
                          "(" + std::string(arg.type) +
                              ") is not bound: call setTexture at index " +
                              std::to_string(arg.index)};
  if (auto problem = texture_problem(arg, *t)) return problem;
  req.args.textures[arg.index] = &t->binding();
  add_memory_range(arg, *t, req);
  return std::nullopt;
}

std::optional<BindingProblem> bind_sampler(const abi::ArgInfo& arg, const MTL::EncodedDispatch& d,
                                           abi::DispatchRequest& req) {
  if (arg.index >= abi::kMaxSamplerBindings)
    return BindingProblem{CheckId::api_misuse,
                          "uses index " + std::to_string(arg.index) + ", over 15"};
  const MTL::SamplerState* s = d.samplers[arg.index].get();
  if (s == nullptr)
    return BindingProblem{
        CheckId::api_unbound_buffer,
        "is not bound: call setSamplerState at index " + std::to_string(arg.index)};
  req.args.samplers[arg.index] = &s->binding();
  return std::nullopt;
}

}  // namespace metalsim::host
