#include "harness.h"

namespace metalsim::yardstick {

NS::SharedPtr<MTL::ComputePipelineState> Runner::pipeline(const std::string& name,
                                                          std::string* error,
                                                          MTL::FunctionConstantValues* constants) {
  NS::Error* fe = nullptr;
  NS::String* ns_name = NS::String::string(name.c_str(), NS::UTF8StringEncoding);
  auto fn = NS::TransferPtr(constants ? library_->newFunction(ns_name, constants, &fe)
                                      : library_->newFunction(ns_name));
  if (!fn) {
    *error = "no kernel named " + name;
    if (fe != nullptr) *error += ": " + std::string(fe->localizedDescription()->utf8String());
    return {};
  }
  NS::Error* e = nullptr;
  auto pso = NS::TransferPtr(device_->newComputePipelineState(fn.get(), &e));
  if (!pso) {
    *error = "no pipeline for " + name;
    if (e != nullptr) *error += ": " + std::string(e->localizedDescription()->utf8String());
  }
  return pso;
}

NS::SharedPtr<MTL::Library> Runner::compile_file(const std::string& path,
                                                 const std::vector<std::string>& include_dirs,
                                                 std::string* error) {
  auto options = NS::TransferPtr(MTL::CompileOptions::alloc()->init());
  options->setIncludeDirectories(include_dirs);
  NS::Error* e = nullptr;
  auto library = NS::TransferPtr(device_->newLibrary(
      NS::URL::fileURLWithPath(NS::String::string(path.c_str())), options.get(), &e));
  if (!library && e != nullptr) *error = e->localizedDescription()->utf8String();
  return library;
}

bool Runner::run(const std::string& name,
                 const std::function<void(MTL::ComputeCommandEncoder*)>& bind, MTL::Size a,
                 MTL::Size group, bool threads, size_t threadgroup_bytes, std::string* error) {
  auto pso = pipeline(name, error, constants_);
  if (!pso) return false;
  MTL::CommandBuffer* cb = queue_->commandBuffer();
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pso.get());
  bind(enc);
  if (threadgroup_bytes) enc->setThreadgroupMemoryLength(threadgroup_bytes, 0);
  if (threads) enc->dispatchThreads(a, group);
  else enc->dispatchThreadgroups(a, group);
  enc->endEncoding();
  cb->commit();
  cb->waitUntilCompleted();
  if (cb->status() == MTL::CommandBufferStatusCompleted) {
    // Warnings (barrier.exited: a barrier after some threads returned, which Apple GPUs run to
    // the end) leave the buffer completed: said in the row's note, not a failure.
    for (const metalsim::report::Report& r : cb->reports())
      *error += std::string(error->empty() ? "" : "; ") + "warning " +
                std::string(metalsim::report::check_name(r.check)) + " at " + r.site.str();
    return true;
  }
  *error = "command buffer failed";
  if (cb->error()) *error += std::string(": ") + cb->error()->localizedDescription()->utf8String();
  return false;
}

bool Runner::dispatch_threads(const std::string& name,
                              const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
                              MTL::Size grid, MTL::Size group, std::string* error) {
  return run(name, bind, grid, group, true, 0, error);
}

bool Runner::dispatch_groups(const std::string& name,
                             const std::function<void(MTL::ComputeCommandEncoder*)>& bind,
                             MTL::Size groups, MTL::Size group, std::string* error,
                             size_t threadgroup_bytes) {
  return run(name, bind, groups, group, false, threadgroup_bytes, error);
}

namespace {

// A report's first three lines, joined (the check id and message, the kernel, the thread): the
// table keeps one line per row.
std::string first_lines(const std::string& s) {
  std::string out;
  int lines = 0;
  for (char c : s) {
    if (c == '\n') {
      if (++lines == 3) break;
      out += ' ';
      continue;
    }
    out += c == '|' ? '/' : c;
  }
  return out;
}

}  // namespace

int print_table(const std::vector<Row>& rows) {
  int failed = 0;
  std::printf("| file | instance | shape | runs | max error | tolerance | result |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Row& r : rows) {
    const bool expected =
        !r.passed() && !r.known_bug.empty() && r.note.find(r.known_check) != std::string::npos;
    failed += r.passed() || expected ? 0 : 1;
    const char* result = r.passed() ? "ok" : expected ? "kernel bug" : "FAIL";
    const std::string note =
        expected ? r.known_bug + " (" + first_lines(r.note) + ")" : first_lines(r.note);
    std::printf("| %s | `%s` | %s | %s | %.2g | %.2g | %s%s%s |\n", r.file.c_str(),
                r.instance.c_str(), r.shape.c_str(), r.ran ? "yes" : "no", r.max_error, r.tolerance,
                result, note.empty() ? "" : ": ", note.c_str());
  }
  return failed;
}

}  // namespace metalsim::yardstick
