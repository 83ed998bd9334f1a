#include "host/model/forward_pass.h"

namespace metalsim::model {

void ForwardPass::encode(const Encoding& e, const BatchBuffers& b, uint32_t position,
                         StepPatches* patches) const {
  const ModelConfig& c = config;
  const uint32_t n = b.tokens;
  kernels.embedding(e, b.token_ids.get(), weights.embedding.get(), b.hidden_a.get(), b.status.get(),
                    n, c.vocab, c.hidden);
  for (uint32_t l = 0; l < c.layers; ++l) {
    encode_attention_block(e, b, l, position, patches);
    encode_ffn_block(e, b, l);
  }
  const size_t last = size_t(n - 1) * c.hidden;
  kernels.rms_norm(e, floats_at(b.hidden_a.get(), last), weights.final_norm.get(),
                   floats_at(b.hidden_b.get(), last), 1, c.hidden, c.rms_eps);
  kernels.matvec(e, weights.embedding.get(), floats_at(b.hidden_b.get(), last), {logits, 0},
                 c.vocab, c.hidden, 1, false);
  kernels.argmax(e, {logits, 0}, result, c.vocab);
}

void ForwardPass::encode_attention_block(const Encoding& e, const BatchBuffers& b, uint32_t layer,
                                         uint32_t position, StepPatches* patches) const {
  const ModelConfig& c = config;
  const DeviceLayer& w = weights.layers[layer];
  const uint32_t n = b.tokens;
  kernels.rms_norm(e, {b.hidden_a.get(), 0}, w.attn_norm.get(), {b.hidden_b.get(), 0}, n, c.hidden,
                   c.rms_eps);
  kernels.matvec(e, w.q.get(), {b.hidden_b.get(), 0}, {b.q.get(), 0}, c.q_dim(), c.hidden, n,
                 false);
  kernels.matvec(e, w.k.get(), {b.hidden_b.get(), 0}, {b.k.get(), 0}, c.kv_dim(), c.hidden, n,
                 false);
  kernels.matvec(e, w.v.get(), {b.hidden_b.get(), 0}, {b.v.get(), 0}, c.kv_dim(), c.hidden, n,
                 false);
  const BufferSlice rope_params = kernels.rope(e, {b.q.get(), 0}, {b.k.get(), 0}, n, c.heads,
                                               c.kv_heads, c.head_dim, position, c.rope_theta);
  if (patches) patches->rope_params.push_back(rope_params);
  MTL::Buffer* keys = cache.keys(layer);
  MTL::Buffer* values = cache.values(layer);
  for (uint32_t t = 0; t < n; ++t) {
    const size_t append_command = e.commands.dispatches();
    kernels.kv_append(e, floats_at(b.k.get(), size_t(t) * c.kv_dim()),
                      floats_at(b.v.get(), size_t(t) * c.kv_dim()), key_slot(layer, position + t),
                      value_slot(layer, position + t), c.kv_dim());
    const size_t attention_command = e.commands.dispatches();
    const BufferSlice attention_params =
        kernels.attention(e, floats_at(b.q.get(), size_t(t) * c.q_dim()), keys, values,
                          floats_at(b.attn_out.get(), size_t(t) * c.q_dim()), c.heads, c.kv_heads,
                          c.head_dim, cache.visible(position + t));
    if (patches)
      patches->tokens.push_back({layer, t, append_command, attention_command, attention_params});
  }
  kernels.matvec(e, w.o.get(), {b.attn_out.get(), 0}, {b.hidden_a.get(), 0}, c.hidden, c.q_dim(), n,
                 true);
}

void ForwardPass::encode_ffn_block(const Encoding& e, const BatchBuffers& b, uint32_t layer) const {
  const ModelConfig& c = config;
  const DeviceLayer& w = weights.layers[layer];
  const uint32_t n = b.tokens;
  kernels.rms_norm(e, {b.hidden_a.get(), 0}, w.ffn_norm.get(), {b.hidden_b.get(), 0}, n, c.hidden,
                   c.rms_eps);
  kernels.matvec(e, w.gate.get(), {b.hidden_b.get(), 0}, {b.gate.get(), 0}, c.intermediate,
                 c.hidden, n, false);
  kernels.matvec(e, w.up.get(), {b.hidden_b.get(), 0}, {b.up.get(), 0}, c.intermediate, c.hidden, n,
                 false);
  kernels.swiglu(e, {b.gate.get(), 0}, {b.up.get(), 0}, {b.silu.get(), 0}, n * c.intermediate);
  kernels.matvec(e, w.down.get(), {b.silu.get(), 0}, {b.hidden_a.get(), 0}, c.hidden,
                 c.intermediate, n, true);
}

BufferSlice ForwardPass::key_slot(uint32_t layer, uint32_t position) const {
  return floats_at(cache.keys(layer), size_t(cache.slot(position)) * config.kv_dim());
}

BufferSlice ForwardPass::value_slot(uint32_t layer, uint32_t position) const {
  return floats_at(cache.values(layer), size_t(cache.slot(position)) * config.kv_dim());
}

void ForwardPass::repoint(const StepPatches& patches, MTL::IndirectCommandBuffer* commands,
                          uint32_t position) const {
  for (const BufferSlice& params : patches.rope_params)
    ModelKernels::set_rope_position(params, position);
  for (const StepPatches::Token& t : patches.tokens) {
    const uint32_t p = position + t.token;
    ModelKernels::repoint_kv_append(commands->indirectComputeCommand(t.append_command),
                                    key_slot(t.layer, p), value_slot(t.layer, p));
    ModelKernels::repoint_attention(commands->indirectComputeCommand(t.attention_command),
                                    t.attention_params, cache.keys(t.layer), cache.values(t.layer),
                                    cache.visible(p));
  }
}

}  // namespace metalsim::model
