// Attention's costs: FLOPs, HBM bytes of the naive and the IO-aware (tiled) forward pass, extra
// memory, arithmetic intensity of prefill and decode, and the KV cache.
#pragma once

#include <stdexcept>
#include <string>

#include "theory/work.h"

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
// naive_attention_work's total with every matrix in bytes_per_element.
double naive_attention_bytes(const AttentionShape& s);

// HBM bytes of tiled attention with Br query rows per block: Q and O once (2nd), K and V once per
// query block (2nd·⌈n/Br⌉) per head; with Br ≈ M/(4d) for on-chip memory M this is Θ(n²d²/M)
// (Dao et al. 2022, Theorem 2). Causal: the blocks above the diagonal are skipped (≈ half of K, V).
double tiled_attention_bytes(const AttentionShape& s, double block_rows);

// How a naive kernel stores its n×n matrices (Q, K, V in the shape's bytes_per_element): S = QKᵀ
// and P = softmax(S) with their element sizes, O's, and whether P overwrites S in place (one n×n
// matrix per head) or both are held. The host kernel: fp32 throughout, P in place; the CUDA one: S
// in fp32, P in the input type beside it, O in fp32.
struct NaiveAttentionLayout {
  double score_bytes;
  double prob_bytes;
  double output_bytes;
  bool prob_in_place;
};

// The naive pass's traffic with those sizes, per head: read Q, K (2nd), S (n²), P (n²), V (nd);
// write S (n²), P (n²), O (nd) (Dao et al. 2022, §3.2); flop attention_flop; elements B·H·n·d.
// With every size equal to bytes_per_element its total is naive_attention_bytes.
WorkCount naive_attention_work(const AttentionShape& s, const NaiveAttentionLayout& l);

// Tiled (fused) attention's traffic: tiled_attention_bytes, of which Q and K, V are read in the
// input type and O (B·H·n·d elements) is written in `output_bytes`; flop attention_flop. What a
// tiled kernel may move, not what it must: its K/V re-reads are largely served by L2, so this is a
// reported figure, never the roofline law's bytes (compulsory_attention_work is).
WorkCount tiled_attention_work(const AttentionShape& s, double block_rows, double output_bytes);

// Compulsory HBM bytes of an exact forward pass, every element in bytes_per_element: Q and O once
// (2·B·H·n·d), K and V once (2·B·H_kv·n·d); causal masking skips none of them (the last query row
// reads every key) — B=H=1, n=1024, d=64, bf16: 4·n·d·2 = 524,288 B (Williams et al., Roofline,
// CACM 2009: compulsory traffic; Dao et al. 2022, §3.2: Q, K, V, O are the IO lower bound's Ω(nd)).
double compulsory_attention_bytes(const AttentionShape& s);

// The fused (IO-aware) kernel's declared work, the roofline law's count: compulsory_attention_bytes
// with Q, K, V read in the input type and O (B·H·n·d elements) written in `output_bytes`; flop
// attention_flop (causal: half).
WorkCount compulsory_attention_work(const AttentionShape& s, double output_bytes);

// Extra device memory beyond Q, K, V and O: a naive kernel holds S for every head, and P beside it
// unless P overwrites S: B·H·n²·(score bytes [+ prob bytes]) — 4·B·H·n² on the host (fp32, P in
// place), 6·B·H·n² on the GPU (S fp32, P 2 bytes; theory/README.md, "Attention"). The fused kernel
// holds nothing but per-row statistics in registers: 0 bytes in HBM.
double naive_extra_bytes(const AttentionShape& s, const NaiveAttentionLayout& l);

// Device memory of the inputs and the output: Q (`queries` rows per head) in the input type, O in
// `output_bytes`, and K, V (B·H_kv·n·d each) in the input type.
double attention_io_bytes(const AttentionShape& s, double queries, double output_bytes);

// Decode: one new query token per sequence against a cache of n positions: 4·B·H·n·d flop and the
// whole KV cache read once, so its intensity is 4·H·d / (2·H_kv·d·bytes) ≈ 2·(H/H_kv)/bytes
// flop/byte — far left of any GPU's ridge point: memory-bound.
double decode_flop(const AttentionShape& s);

// Decode's traffic: the KV cache (kv_cache_bytes of one layer) and q (B·H·d) read in the input
// type, o (B·H·d elements) written in `output_bytes`; flop decode_flop.
WorkCount decode_work(const AttentionShape& s, double output_bytes);

// KV cache: 2 · L · n · H_kv · d · bytes · batch (K and V per layer, position, kv head)
// (Pope et al., "Efficiently Scaling Transformer Inference", 2022, §2; GQA: Ainslie et al. 2023).
double kv_cache_bytes(double layers, double n, double kv_heads, double d, double bytes_per_element,
                      double batch);

}  // namespace bb::theory
