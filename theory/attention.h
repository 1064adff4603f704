// Attention's costs: FLOPs, HBM bytes of the naive and the IO-aware (tiled) forward pass, extra
// memory, arithmetic intensity of prefill and decode, and the KV cache.
#pragma once

#include <stdexcept>
#include <string>

namespace bb::theory {

struct AttentionShape {
  double batch = 1, heads = 1, kv_heads = 1;  // query heads; kv_heads divides heads (GQA, MQA)
  double n = 1;                               // sequence length (queries = keys)
  double d = 64;                              // head dimension
  bool causal = false;
  double bytes_per_element = 2;
};

// Throws std::invalid_argument for sizes < 1 or heads not a multiple of kv_heads.
void validate(const AttentionShape& s);

// Forward FLOPs: 4·B·H·n²·d (two n×n×d matrix products, 2 flop per multiply-add; softmax not
// counted); causal: half, the convention of FlashAttention's benchmarks (Dao et al. 2022, 2023).
double attention_flop(const AttentionShape& s);

// HBM bytes of the three-kernel naive forward pass, per head (4n² + 4nd) elements: read Q, K and
// write S = QKᵀ (2nd + n²); read S, write P = softmax(S) (2n²); read P, V, write O (n² + 2nd)
// (Dao et al. 2022, §3.2). GQA reads each K/V head once per query head, as a naive kernel does.
double naive_attention_bytes(const AttentionShape& s);

// HBM bytes of tiled attention with Br query rows per block: Q and O once (2nd), K and V once per
// query block (2nd·⌈n/Br⌉) per head; with Br ≈ M/(4d) for on-chip memory M this is Θ(n²d²/M)
// (Dao et al. 2022, Theorem 2). Causal: the blocks above the diagonal are skipped (≈ half of K, V).
double tiled_attention_bytes(const AttentionShape& s, double block_rows);

// Extra device memory beyond Q, K, V and O: naive holds S (fp32) for every head, B·H·n²·4 bytes;
// the fused kernel holds nothing but per-row statistics in registers: 0 bytes in HBM.
double naive_extra_bytes(const AttentionShape& s);

// Decode: one new query token per sequence against a cache of n positions: 4·B·H·n·d flop and the
// whole KV cache read once, so its intensity is 4·H·d / (2·H_kv·d·bytes) ≈ 2·(H/H_kv)/bytes
// flop/byte — far left of any GPU's ridge point: memory-bound.
double decode_flop(const AttentionShape& s);

// KV cache: 2 · L · n · H_kv · d · bytes · batch (K and V per layer, position, kv head)
// (Pope et al., "Efficiently Scaling Transformer Inference", 2022, §2; GQA: Ainslie et al. 2023).
double kv_cache_bytes(double layers, double n, double kv_heads, double d, double bytes_per_element,
                      double batch);

}  // namespace bb::theory
