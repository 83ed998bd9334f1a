// The batch buffers against the document's table (docs/findings/multi_token_matvec.md): the nine
// float buffers of a token, and each buffer exactly as long as the batch needs.
#include <gtest/gtest.h>

#include "host/model/batch_buffers.h"

namespace metalsim::model {
namespace {

// SmolLM-135M: hidden 576, q_dim 576, kv_dim 192, intermediate 1536 floats per token in the
// document's nine buffers: 2 * 576 + 2 * 576 + 2 * 192 + 3 * 1536 = 7296 floats, 29,184 bytes.
TEST(BatchBuffers, SmolLmFloatBytesAreTheFindingsTable) {
  EXPECT_EQ(BatchBuffers::float_bytes(ModelConfig::smollm_135m(), 1), 29184u);
  EXPECT_EQ(BatchBuffers::float_bytes(ModelConfig::smollm_135m(), 128), 128u * 29184u);
}

TEST(BatchBuffers, EachBufferHoldsTheBatchExactly) {
  const ModelConfig c = ModelConfig::small();
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  const uint32_t tokens = 3;
  const BatchBuffers b(device.get(), c, tokens);
  const uint64_t total = b.hidden_a->length() + b.hidden_b->length() + b.q->length() +
                         b.k->length() + b.v->length() + b.attn_out->length() + b.gate->length() +
                         b.up->length() + b.silu->length();
  EXPECT_EQ(total, BatchBuffers::float_bytes(c, tokens));
  EXPECT_EQ(b.hidden_a->length(), uint64_t(tokens) * c.hidden * 4);
  EXPECT_EQ(b.silu->length(), uint64_t(tokens) * c.intermediate * 4);
}

}  // namespace
}  // namespace metalsim::model
