#pragma once
// The graph-capture document's captured decode step, through Metal's own API: one forward call
// of `tokens` tokens recorded once into an MTL::IndirectCommandBuffer, with everything it binds
// held still: the batch buffers (the document's static ping-pong buffers hidden_a / hidden_b,
// q, k, v, ...) and the argument buffer of every small argument. A replay writes the new token
// ids into the batch buffer and the position into the argument buffer, points the commands that
// touch the KV cache at the position's slot ("pointer swapping"), and executes the commands.
// The runner keeps one per batch size, as the document's graph cache does.
#include <cstdint>

#include "host/model/argument_arena.h"
#include "host/model/batch_buffers.h"
#include "host/model/forward_pass.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model {

struct CapturedProgram {
  CapturedProgram(MTL::Device* device, const ModelConfig& config, uint32_t tokens)
      : batch(device, config, tokens), arguments(device) {}

  BatchBuffers batch;
  ArgumentArena arguments;
  NS::SharedPtr<MTL::IndirectCommandBuffer> commands;
  StepPatches patches;
};

}  // namespace metalsim::model
