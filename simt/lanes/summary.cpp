#include "simt/lanes/summary.h"

namespace metalsim::lanes {

void describe_prepared(const PreparedBody& p, BodySummary& summary) {
  summary.lines.push_back("rematerialized: " + std::to_string(p.remat.uniform.size()) +
                          " uniform, " + std::to_string(p.remat.per_lane.size()) + " per lane");
  for (const SyncPoint& s : p.syncs)
    summary.lines.push_back("sync " + std::to_string(s.id) + " " + engine_call_name(s.kind) +
                            " at " + (s.site.empty() ? "?" : s.site));
  for (const AcrossLoop& a : p.across) {
    uint32_t id = 0;
    for (const SyncPoint& s : p.syncs)
      if (s.call == a.yield) id = s.id;
    summary.lines.push_back("across lanes: loop at " + a.site + ", yield " + std::to_string(id) +
                            ", " + std::to_string(a.recomputed) +
                            " induction variables recomputed" +
                            (a.tested_apart ? ", stores tested apart at run time" : ""));
  }
  for (const std::string& loop : p.per_lane_loops)
    summary.lines.push_back("per lane: loop at " + loop);
  for (const FrameSlot& s : p.frame.slots)
    summary.lines.push_back(
        "slot " + s.name + ": " + std::to_string(s.size) + " bytes at offset " +
        std::to_string(s.offset) +
        (s.element_bytes != 0
             ? ", element-major (" + std::to_string(s.element_bytes) + "-byte elements)"
             : ""));
  for (const Region& r : p.regions) {
    std::string line = "region " + std::to_string(r.cont) + ": " + std::to_string(r.blocks.size()) +
                       (r.blocks.size() == 1 ? " block, " : " blocks, ") +
                       std::to_string(r.instructions) + " instructions ->";
    const char* sep = " ";
    for (uint32_t k : r.exits) {
      line += sep + std::string("sync ") + std::to_string(k);
      sep = ", ";
    }
    if (r.returns) line += sep + std::string("return");
    summary.lines.push_back(line);
  }
}

std::string format_summary(const std::vector<BodySummary>& bodies) {
  std::string text;
  for (const BodySummary& b : bodies) {
    text += "body " + b.body + " declared at " + b.declared_at + "\n";
    if (!b.why.empty()) {
      text += "  not transformed: " + b.why + "\n";
      continue;
    }
    text += "  step " + b.step + ": " + std::to_string(b.frame_bytes) + " frame bytes per lane, " +
            std::to_string(b.demoted) + " values demoted\n";
    for (const std::string& line : b.lines) text += "  " + line + "\n";
  }
  return text;
}

}  // namespace metalsim::lanes
