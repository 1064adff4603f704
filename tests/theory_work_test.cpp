// Tests for the work counts of theory/ (each family's *_work function): hand-worked numbers for
// one size of each kernel, the counts every case declares.
#include <gtest/gtest.h>

#include "app/theory_catalogue.h"
#include "theory/block_quant.h"
#include "theory/formats.h"
#include "theory/gemm.h"
#include "theory/hierarchy.h"
#include "theory/intensity.h"
#include "theory/occupancy.h"
#include "theory/quant.h"
#include "theory/stream.h"
#include "theory/summation.h"
#include "theory/work.h"

namespace bb::theory {
namespace {

using namespace app;  // the catalogue

void expect_work(const WorkCount& w, double read, double written, double flop, double elements) {
  EXPECT_DOUBLE_EQ(w.bytes_read, read);
  EXPECT_DOUBLE_EQ(w.bytes_written, written);
  EXPECT_DOUBLE_EQ(w.flop, flop);
  EXPECT_DOUBLE_EQ(w.elements, elements);
}

TEST(Work, Stream) {
  // Triad over 2^20 fp32 elements: b and c read, a written, 2 flop each (BabelStream).
  const WorkCount w = stream_work(*find_stream_kernel("triad"), 0x1p20, 4);
  expect_work(w, 2 * 0x1p20 * 4, 0x1p20 * 4, 2 * 0x1p20, 0x1p20);
  EXPECT_DOUBLE_EQ(w.bytes(), 12 * 0x1p20);
  expect_work(stream_work(*find_stream_kernel("dot"), 1000, 8), 16000, 0, 2000, 1000);
}

TEST(Work, Hierarchy) {
  // 1 MiB of fp64 read 3 times: 3 MiB, one add per element read.
  expect_work(read_work(0x1p20, 8, 3), 3 * 0x1p20, 0, 3 * 0x1p17, 3 * 0x1p17);
  // 1000 fp32 reads 8 apart (32 bytes): one 32-byte sector each; 1 apart: 4000 bytes in 125.
  expect_work(strided_read_work(1000, 8, 4, 32), 32000, 0, 1000, 1000);
  expect_work(strided_read_work(1000, 1, 4, 32), 4000, 0, 1000, 1000);
  // 256 MiB over the link, counted once, as floats.
  expect_work(link_copy_work(0x1p28, 4), 0x1p28, 0, 0, 0x1p26);
}

TEST(Work, FmaChainAndGemm) {
  // 1000 bf16 elements, 64 FMAs each: 2000 bytes each way, 128000 flop; 32 flop/byte.
  const WorkCount chain = fma_chain_work(1000, 2, 64);
  expect_work(chain, 2000, 2000, 128000, 1000);
  EXPECT_DOUBLE_EQ(chain.flop / chain.bytes(), 32);
  // 64×64 by 64×256, fp16 in, fp32 out: 2mnk flop; A (64×256) and B (256×64) read; C written.
  expect_work(gemm_work(64, 64, 256, 2, 4), (64 * 256 + 256 * 64) * 2.0, 64 * 64 * 4.0,
              2.0 * 64 * 64 * 256, 64 * 64);
}

// `boundbench theory gemm-bytes` at 8192³, bf16 in, fp32 out: 2·8192³ flop over 2·8192²·2 + 8192²·4
// bytes = 8192 / 4 = 2048 flop/byte.
TEST(Work, GemmBytesFormula) {
  const auto outs =
      evaluate_formula(find_formula("gemm-bytes"), {{"m", "8192"}, {"n", "8192"}, {"k", "8192"}});
  const WorkCount w = gemm_work(8192, 8192, 8192, 2, 4);
  ASSERT_EQ(outs.size(), 5u);
  EXPECT_DOUBLE_EQ(outs[0].value, w.flop);
  EXPECT_DOUBLE_EQ(outs[1].value, 0x1p26 * 4);
  EXPECT_DOUBLE_EQ(outs[2].value, 0x1p26 * 4);
  EXPECT_DOUBLE_EQ(outs[4].value, 2048);
}

TEST(Work, ConversionAndSummation) {
  expect_work(conversion_work(1000, 4, 2), 4000, 2000, 0, 1000);
  expect_work(conversion_sweep_work(0x1p32), 0, 0, 0, 0x1p32);
  EXPECT_DOUBLE_EQ(summation_flop_per_element(false), 1);
  EXPECT_DOUBLE_EQ(summation_flop_per_element(true), 4);  // y = x - c, t = s + y, (t - s) - y
  expect_work(summation_work(4096, 4, 4), 16384, 0, 16384, 4096);
}

TEST(Work, Quantization) {
  // int8: the range pass and the quantize pass read the floats; one byte out per value.
  expect_work(int_quant_work(1024, 8), 8192, 1024, 0, 1024);
  expect_work(int_quant_work(1024, 8, 1), 4096, 1024, 0, 1024);  // one fused pass
  expect_work(int_quant_work(1024, 4), 8192, 512, 0, 1024);
  // MXFP8 blocks of 32: one pass; 1024 codes and 32 E8M0 scales.
  expect_work(block_quant_work(1024, 8, 32, false), 4096, 1056, 0, 1024);
  // NVFP4: the amax pass too; two codes per byte and 64 E4M3 scales per 1024.
  expect_work(block_quant_work(1024, 4, 16, true), 8192, 576, 0, 1024);
  // fp8 per tensor: two passes, codes only (the fp32 tensor scale is not counted).
  expect_work(block_quant_work(1024, 8, 0, true), 8192, 1024, 0, 1024);
}

TEST(Work, OccupancyKernels) {
  expect_work(divergence_work(1024, 4096), 0, 0, 2.0 * 4096 * 1024, 0);
  expect_work(bank_conflict_work(1024, 4000), 0, 0, 4000.0 * 1024, 0);
  expect_work(spill_work(256, 256), 0, 0, 2.0 * 64 * 256 * 256, 0);
}

}  // namespace
}  // namespace bb::theory
