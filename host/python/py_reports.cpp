// report::Report as Python sees it: read-only attributes (the check, the kernel, where in the
// grid, the .metal lines, the memory) and `text`, the lines the metalsim program prints.
#include <pybind11/stl.h>

#include <optional>
#include <tuple>

#include "bindings.h"
#include "simt/report/check_id.h"
#include "simt/report/report.h"

namespace py = pybind11;

namespace metalsim::python {
namespace {

using report::Report;

std::tuple<uint32_t, uint32_t, uint32_t> xyz(const metalsim::Size3& s) { return {s.x, s.y, s.z}; }

const char* family_name(metalsim::CheckFamily f) {
  switch (f) {
    case metalsim::CheckFamily::sync: return "sync";
    case metalsim::CheckFamily::init: return "init";
    case metalsim::CheckFamily::mem: return "mem";
    case metalsim::CheckFamily::race: return "race";
    case metalsim::CheckFamily::api: return "api";
  }
  return "?";
}

// Where the report has no lane (validation, a watchdog outside kernel code), the positions are
// None rather than a made-up (0,0,0).
std::optional<std::tuple<uint32_t, uint32_t, uint32_t>> thread_of(const Report& r) {
  if (!r.has_lane || !r.thread_known) return std::nullopt;
  return xyz(r.lane.thread);
}

}  // namespace

void bind_reports(py::module_& m) {
  py::class_<Report>(m, "Report", "One finding of a dispatch (simt/report/report.h)")
      .def_property_readonly("check", [](const Report& r) { return report::check_name(r.check); })
      .def_property_readonly("family",
                             [](const Report& r) { return family_name(check_family(r.check)); })
      .def_property_readonly("severity",
                             [](const Report& r) { return report::severity_name(r.severity()); })
      .def_readonly("kernel", &Report::kernel)
      .def_property_readonly("threadgroup",
                             [](const Report& r) {
                               return r.has_lane ? std::optional(xyz(r.lane.threadgroup))
                                                 : std::nullopt;
                             })
      .def_property_readonly("thread", &thread_of)
      .def_property_readonly("simdgroup",
                             [](const Report& r) {
                               return r.has_lane && r.thread_known ? std::optional(r.lane.simdgroup)
                                                                   : std::nullopt;
                             })
      .def_property_readonly("simd_lane",
                             [](const Report& r) {
                               return r.has_lane && r.thread_known ? std::optional(r.lane.simd_lane)
                                                                   : std::nullopt;
                             })
      .def_property_readonly("file", [](const Report& r) { return r.site.file; })
      .def_property_readonly("line",
                             [](const Report& r) {
                               return r.site.known() ? std::optional(r.site.line) : std::nullopt;
                             })
      .def_property_readonly("other_file", [](const Report& r) { return r.other_site.file; })
      .def_property_readonly("other_line",
                             [](const Report& r) {
                               return r.other_site.known() ? std::optional(r.other_site.line)
                                                           : std::nullopt;
                             })
      .def_readonly("other_lanes", &Report::other_lanes)
      .def_readonly("running_lanes", &Report::running_lanes)
      .def_readonly("memory", &Report::memory)
      .def_property_readonly(
          "offset",
          [](const Report& r) { return r.has_offset ? std::optional(r.offset) : std::nullopt; })
      .def_readonly("message", &Report::message)
      .def_readonly("repeats", &Report::repeats)
      .def_property_readonly("text", &Report::format)
      .def("__repr__", [](const Report& r) {
        return "<metalsim Report " + std::string(report::check_name(r.check)) + " at " +
               r.site.str() + ">";
      });
  // uninit.output is found by whoever poisoned the outputs (the package, as the spec harness
  // does for the program): the report is made here so its text is Report::format's.
  m.def(
      "uninit_output_report",
      [](const std::string& kernel, const std::string& memory, int64_t offset,
         const std::string& message) {
        Report r;
        r.check = report::CheckId::uninit_output;
        r.kernel = kernel;
        r.memory = memory;
        r.has_offset = true;
        r.offset = offset;
        r.message = message;
        return r;
      },
      py::arg("kernel"), py::arg("memory"), py::arg("offset"), py::arg("message"));
}

}  // namespace metalsim::python
