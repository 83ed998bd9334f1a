#pragma once
// The errors of the gpu-perf-phase3 document's table, as one exception type: what was wrong,
// and where. A call that throws changes nothing: the position, the KV cache and the logits
// are as before, and the runner stays usable.
#include <stdexcept>
#include <string>

namespace metalsim::model {

enum class ModelErrorKind {
  empty_prompt,        // forward_prompt with no token
  token_out_of_range,  // a token id >= vocab
  kv_capacity,         // position + tokens past the chunked cache's max_context
  command_buffer,      // the command buffer ended with an error (a kernel fault, a check)
};

class ModelError : public std::runtime_error {
 public:
  ModelError(ModelErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  ModelErrorKind kind() const { return kind_; }

 private:
  ModelErrorKind kind_;
};

}  // namespace metalsim::model
