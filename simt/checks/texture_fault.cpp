#include "simt/checks/texture_fault.h"

#include <algorithm>
#include <string>

#include "simt/abi/texture_binding.h"
#include "simt/checks/access_check.h"
#include "simt/fault/fault.h"
#include "simt/report/sync_site.h"

namespace metalsim::checks {
namespace {

struct PendingFault {
  abi::TextureAccessFault fault;
  std::source_location site;
};
// The fault being raised: the jump to the runner's recovery point carries only a FaultRecord.
thread_local PendingFault tls_pending;

std::string argument_name(const abi::DispatchRequest& request, uint32_t index) {
  std::string name = "texture(" + std::to_string(index) + ")";
  if (request.kernel == nullptr) return name;
  for (const abi::ArgInfo& a : request.kernel->args)
    if (a.kind == abi::ArgKind::Texture && a.index == index) return name + " '" + a.name + "'";
  return name;
}

// The size of mipmap `level` (each level halves, down to 1).
std::string size_text(const abi::TextureBinding& t, uint32_t level) {
  auto at = [level](uint32_t n) {
    return std::to_string(std::max(1u, level < 32 ? n >> level : 0));
  };
  const std::string of_level = level == 0 ? "" : " level " + std::to_string(level) + " of the";
  if (t.kind == abi::TextureKind::texture2d) return at(t.width) + "x" + at(t.height) + of_level;
  return at(t.width) + of_level;
}

std::string coordinate_text(const abi::TextureAccessFault& f) {
  if (f.texture->kind == abi::TextureKind::texture2d)
    return "(" + std::to_string(f.x) + ", " + std::to_string(f.y) + ")";
  return std::to_string(f.x);
}

}  // namespace

}  // namespace metalsim::checks

// Declared in the kernel ABI (simt/abi/texture_binding.h): the MSL texture headers call it.
namespace metalsim::abi {

void texture_out_of_bounds(const TextureAccessFault& fault, std::source_location site) {
  const DispatchRequest* request = checks::ActiveDispatch::current();
  if (request == nullptr || !request->options.checks.mem) return;
  checks::tls_pending = {fault, site};
  fault::FaultRecord record;
  record.address = fault.texture->data;
  record.write = fault.write;
  record.detected = true;
  record.texture = true;
  record.lane = fault.lane;
  fault::FaultTrap::raise(record);  // does not return while a trap is armed
}

}  // namespace metalsim::abi

namespace metalsim::checks {

void describe_texture_fault(const abi::DispatchRequest& request, report::Report& r) {
  const abi::TextureAccessFault& f = tls_pending.fault;
  const abi::TextureBinding& t = *f.texture;
  r.check = report::CheckId::bounds_texture;
  r.site = report::to_site(tls_pending.site);
  r.memory = argument_name(request, f.index);
  const std::string verb = f.write ? "write" : "read";
  if (f.lod >= t.mipmap_levels) {
    r.message = verb + " of mipmap level " + std::to_string(f.lod) + " of a texture with " +
                std::to_string(t.mipmap_levels) + " level" + (t.mipmap_levels == 1 ? "" : "s");
  } else {
    r.message =
        verb + " at " + coordinate_text(f) + ", outside the " + size_text(t, f.lod) + " texture";
  }
}

}  // namespace metalsim::checks
