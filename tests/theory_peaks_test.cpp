// Tests for theory/peaks: datasheet reproductions worked by hand, and sanity of the rate table.
#include "theory/peaks.h"

#include <gtest/gtest.h>

#include <cmath>

namespace bb::theory {
namespace {

double tensor_rate(int major, int minor, Precision p) {
  const ArchPeaks* a = find_arch_peaks(major, minor);
  return a ? a->tensor_flop_per_clock_per_sm[static_cast<std::size_t>(p)] : -1.0;
}

double cuda_rate(int major, int minor, Precision p) {
  const ArchPeaks* a = find_arch_peaks(major, minor);
  return a ? a->cuda_core_flop_per_clock_per_sm[static_cast<std::size_t>(p)] : -1.0;
}

double tensor_of(const ArchPeaks& a, Precision p) {
  return a.tensor_flop_per_clock_per_sm[static_cast<std::size_t>(p)];
}

// |actual / expected - 1| ≤ 1%.
void expect_within_1pct(double actual, double expected) {
  EXPECT_LE(std::abs(actual / expected - 1.0), 0.01) << actual << " vs " << expected;
}

TEST(PeakFlop, A100Tf32Datasheet) {
  // 1024 flop/clk/SM × 108 SMs × 1.41 GHz = 155.9e12 (datasheet 156 TFLOP/s).
  expect_within_1pct(peak_flop_per_s(tensor_rate(8, 0, Precision::tf32), 108, 1.41e9), 156e12);
}

TEST(PeakFlop, A100OtherDatasheetFigures) {
  expect_within_1pct(peak_flop_per_s(tensor_rate(8, 0, Precision::fp16), 108, 1.41e9), 312e12);
  expect_within_1pct(peak_flop_per_s(tensor_rate(8, 0, Precision::int8), 108, 1.41e9), 624e12);
  expect_within_1pct(peak_flop_per_s(tensor_rate(8, 0, Precision::fp64), 108, 1.41e9), 19.5e12);
  expect_within_1pct(peak_flop_per_s(cuda_rate(8, 0, Precision::fp32), 108, 1.41e9), 19.5e12);
  expect_within_1pct(peak_flop_per_s(cuda_rate(8, 0, Precision::fp16), 108, 1.41e9), 78e12);
  expect_within_1pct(peak_flop_per_s(cuda_rate(8, 0, Precision::bf16), 108, 1.41e9), 39e12);
}

TEST(PeakFlop, H100Bf16Datasheet) {
  // 4096 × 132 × 1.83e9 = 989.4e12.
  expect_within_1pct(peak_flop_per_s(tensor_rate(9, 0, Precision::bf16), 132, 1.83e9), 989.4e12);
  expect_within_1pct(peak_flop_per_s(tensor_rate(9, 0, Precision::tf32), 132, 1.83e9), 494.7e12);
  expect_within_1pct(peak_flop_per_s(tensor_rate(9, 0, Precision::fp8), 132, 1.83e9), 1979e12);
  expect_within_1pct(peak_flop_per_s(tensor_rate(9, 0, Precision::int8), 132, 1.83e9), 1979e12);
}

TEST(PeakFlop, H100Fp32AndFp64At1980MHz) {
  // 256 × 132 × 1.98e9 = 66.9e12; fp64 half of that; fp64 tensor equal to fp32.
  expect_within_1pct(peak_flop_per_s(cuda_rate(9, 0, Precision::fp32), 132, 1.98e9), 67e12);
  expect_within_1pct(peak_flop_per_s(cuda_rate(9, 0, Precision::fp64), 132, 1.98e9), 33.5e12);
  expect_within_1pct(peak_flop_per_s(tensor_rate(9, 0, Precision::fp64), 132, 1.98e9), 67e12);
}

TEST(PeakFlop, V100Datasheet) {
  // 64 × 80 × 1.53e9 = 7.83e12 fp64; 128 × ... = 15.7e12 fp32; 1024 × ... = 125e12 tensor fp16.
  expect_within_1pct(peak_flop_per_s(cuda_rate(7, 0, Precision::fp64), 80, 1.53e9), 7.8e12);
  expect_within_1pct(peak_flop_per_s(cuda_rate(7, 0, Precision::fp32), 80, 1.53e9), 15.7e12);
  expect_within_1pct(peak_flop_per_s(tensor_rate(7, 0, Precision::fp16), 80, 1.53e9), 125e12);
}

TEST(PeakFlop, IsProductOfItsArguments) {
  EXPECT_DOUBLE_EQ(peak_flop_per_s(256, 2, 1e9), 512e9);
  EXPECT_DOUBLE_EQ(peak_flop_per_s(0, 132, 1.98e9), 0.0);
}

TEST(PeakDram, H200HandWorked) {
  // 2 × 2619e6 Hz × 6144 bit / 8 = 4.022784e12 B/s. (The H200 datasheet quotes 4.8 TB/s; the
  // clock the driver reports gives this figure, which is what the formula is tested on.)
  EXPECT_DOUBLE_EQ(peak_dram_bytes_per_s(2619e6, 6144), 4.022784e12);
}

TEST(PeakDram, A100Datasheet) {
  // A100 40GB: 2 × 1215 MHz × 5120 bit / 8 = 1.5552e12 (datasheet 1555 GB/s).
  EXPECT_DOUBLE_EQ(peak_dram_bytes_per_s(1215e6, 5120), 1.5552e12);
}

TEST(ArchTable, UnknownArchIsNullptr) {
  EXPECT_EQ(find_arch_peaks(6, 1), nullptr);
  EXPECT_EQ(find_arch_peaks(9, 1), nullptr);
  EXPECT_EQ(find_arch_peaks(8, 8), nullptr);
  EXPECT_EQ(find_arch_peaks(0, 0), nullptr);
  EXPECT_EQ(find_arch_peaks(-1, 0), nullptr);
}

TEST(ArchTable, CoversRequiredArchitectures) {
  const int required[][2] = {{7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {12, 0}};
  for (const auto& cc : required) {
    const ArchPeaks* a = find_arch_peaks(cc[0], cc[1]);
    ASSERT_NE(a, nullptr) << cc[0] << "." << cc[1];
    EXPECT_EQ(a->cc_major, cc[0]);
    EXPECT_EQ(a->cc_minor, cc[1]);
  }
}

TEST(ArchTable, FindReturnsTheTableEntry) {
  for (const ArchPeaks& a : arch_peaks_table()) {
    EXPECT_EQ(find_arch_peaks(a.cc_major, a.cc_minor), &a);
  }
}

TEST(ArchTable, SortedAndUnique) {
  auto table = arch_peaks_table();
  for (std::size_t i = 1; i < table.size(); ++i) {
    const ArchPeaks& prev = table[i - 1];
    const ArchPeaks& cur = table[i];
    EXPECT_TRUE(prev.cc_major < cur.cc_major ||
                (prev.cc_major == cur.cc_major && prev.cc_minor < cur.cc_minor));
  }
}

TEST(ArchTable, EveryEntryHasFp32AndProvenance) {
  for (const ArchPeaks& a : arch_peaks_table()) {
    SCOPED_TRACE(a.architecture);
    EXPECT_GT(a.cuda_core_flop_per_clock_per_sm[static_cast<std::size_t>(Precision::fp32)], 0);
    EXPECT_FALSE(a.source.empty());
    EXPECT_FALSE(a.architecture.empty());
    EXPECT_FALSE(a.example_parts.empty());
  }
}

TEST(ArchTable, NoNegativeRatesAndNoCudaCoreTf32OrFp8) {
  for (const ArchPeaks& a : arch_peaks_table()) {
    SCOPED_TRACE(a.architecture);
    for (std::size_t i = 0; i < kPrecisionCount; ++i) {
      EXPECT_GE(a.cuda_core_flop_per_clock_per_sm[i], 0);
      EXPECT_GE(a.tensor_flop_per_clock_per_sm[i], 0);
    }
    EXPECT_EQ(a.cuda_core_flop_per_clock_per_sm[static_cast<std::size_t>(Precision::tf32)], 0);
    EXPECT_EQ(a.cuda_core_flop_per_clock_per_sm[static_cast<std::size_t>(Precision::fp8)], 0);
  }
}

TEST(ArchTable, TensorRatesMonotoneWhereSupported) {
  for (const ArchPeaks& a : arch_peaks_table()) {
    SCOPED_TRACE(a.architecture);
    auto t = [&](Precision p) { return tensor_of(a, p); };
    if (t(Precision::fp8) > 0 && t(Precision::bf16) > 0) {
      EXPECT_GE(t(Precision::fp8), t(Precision::bf16));
    }
    if (t(Precision::bf16) > 0 && t(Precision::tf32) > 0) {
      EXPECT_GE(t(Precision::bf16), t(Precision::tf32));
    }
    if (t(Precision::fp16) > 0 && t(Precision::tf32) > 0) {
      EXPECT_GE(t(Precision::fp16), t(Precision::tf32));
    }
    if (t(Precision::int8) > 0 && t(Precision::fp16) > 0) {
      EXPECT_GE(t(Precision::int8), t(Precision::fp16));
    }
    // Every tensor core does fp16; fp64 tensor where present is the slowest rate.
    EXPECT_GT(t(Precision::fp16), 0);
    if (t(Precision::fp64) > 0) {
      EXPECT_LE(t(Precision::fp64), t(Precision::tf32));
    }
  }
}

TEST(ArchTable, GenerationSupportMatrix) {
  for (const ArchPeaks& a : arch_peaks_table()) {
    SCOPED_TRACE(a.architecture);
    auto t = [&](Precision p) { return tensor_of(a, p); };
    const int cc = a.cc_major * 10 + a.cc_minor;
    if (cc < 80) {
      EXPECT_EQ(t(Precision::bf16), 0);
      EXPECT_EQ(t(Precision::tf32), 0);
    } else {
      EXPECT_GT(t(Precision::bf16), 0);
      EXPECT_GT(t(Precision::tf32), 0);
    }
    if (cc < 89) {
      EXPECT_EQ(t(Precision::fp8), 0);
    } else {
      EXPECT_GT(t(Precision::fp8), 0);
    }
  }
}

TEST(PrecisionName, RoundTrip) {
  for (Precision p : kAllPrecisions) {
    auto back = precision_from_name(precision_name(p));
    ASSERT_TRUE(back.has_value()) << precision_name(p);
    EXPECT_EQ(*back, p);
  }
}

TEST(PrecisionName, ExactNames) {
  EXPECT_EQ(precision_name(Precision::fp64), "fp64");
  EXPECT_EQ(precision_name(Precision::fp32), "fp32");
  EXPECT_EQ(precision_name(Precision::tf32), "tf32");
  EXPECT_EQ(precision_name(Precision::fp16), "fp16");
  EXPECT_EQ(precision_name(Precision::bf16), "bf16");
  EXPECT_EQ(precision_name(Precision::fp8), "fp8");
  EXPECT_EQ(precision_name(Precision::int8), "int8");
}

TEST(PrecisionName, UnknownIsNullopt) {
  EXPECT_FALSE(precision_from_name("").has_value());
  EXPECT_FALSE(precision_from_name("fp4").has_value());
  EXPECT_FALSE(precision_from_name("FP32").has_value());
  EXPECT_FALSE(precision_from_name("fp32 ").has_value());
}

}  // namespace
}  // namespace bb::theory
