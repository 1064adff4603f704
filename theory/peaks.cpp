// Per-architecture peak rates (dense, flop per clock per SM) and the peak formulas of peaks.h.
// Every rate is an architecture fact (lanes × 2 for an FMA); the comment above each entry checks it
// against a datasheet figure: SMs × clock × rate. Tensor datasheet peaks are quoted at a sustained
// clock below the maximum boost clock, so the checks use the clock each datasheet implies.
#include "theory/peaks.h"

#include <array>

namespace bb::theory {
namespace {

using Rates = std::array<double, kPrecisionCount>;

// Columns in Precision order.
constexpr Rates rates(double fp64, double fp32, double tf32, double fp16, double bf16, double fp8,
                      double int8) {
  return {fp64, fp32, tf32, fp16, bf16, fp8, int8};
}

constexpr std::array<std::string_view, kPrecisionCount> kPrecisionNames = {
    "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};

// CUDA-core int8 is the dp4a rate (4 multiply-adds = 8 op per lane per instruction). NVIDIA
// publishes it only for V100 (62 TOP/s in the A100 whitepaper's comparison table); elsewhere 0.
// CUDA cores have no tf32 or fp8 arithmetic: those columns are 0 throughout.
// rates() columns: fp64, fp32, tf32, fp16, bf16, fp8, int8.
constexpr std::array<ArchPeaks, 9> kArchPeaks = {{
    // V100 SXM2: 80 SMs × 1530 MHz × 128 = 15.7 TFLOP/s fp32 (datasheet 15.7); × 64 = 7.8 fp64
    // (7.8); × 256 = 31.3 fp16 (31.4); × 512 = 62.7 TOP/s int8 dp4a (62); tensor × 1024 = 125
    // fp16 (125).
    {.cc_major = 7,
     .cc_minor = 0,
     .architecture = "Volta",
     .example_parts = "V100",
     .cuda_core_flop_per_clock_per_sm = rates(64, 128, 0, 256, 0, 0, 512),
     .tensor_flop_per_clock_per_sm = rates(0, 0, 0, 1024, 0, 0, 0),
     .source = "NVIDIA Tesla V100 GPU Architecture whitepaper (2017), Table 1; V100 fp16 and int8 "
               "from the NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)"},
    // T4: 40 SMs × 1590 MHz × 128 = 8.1 TFLOP/s fp32 (datasheet 8.1); tensor × 1024 = 65 fp16
    // (65); × 2048 = 130 int8 (130). fp64 is 1/32 of fp32; fp16 non-tensor 2 × fp32 (RTX 2080 Ti:
    // 26.9 vs 13.4 in the Turing whitepaper).
    {.cc_major = 7,
     .cc_minor = 5,
     .architecture = "Turing",
     .example_parts = "T4, RTX 20xx",
     .cuda_core_flop_per_clock_per_sm = rates(4, 128, 0, 256, 0, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(0, 0, 0, 1024, 0, 0, 2048),
     .source = "NVIDIA Turing GPU Architecture whitepaper (2018); NVIDIA T4 datasheet"},
    // A100 SXM: 108 SMs × 1410 MHz × 128 = 19.5 TFLOP/s fp32 (datasheet 19.5); × 64 = 9.7 fp64
    // (9.7); × 512 = 78 fp16 (78); × 256 = 39 bf16 (39); tensor × 128 = 19.5 fp64 (19.5);
    // × 1024 = 156 tf32 (156); × 2048 = 312 fp16/bf16 (312); × 4096 = 624 int8 (624).
    {.cc_major = 8,
     .cc_minor = 0,
     .architecture = "Ampere",
     .example_parts = "A100, A30",
     .cuda_core_flop_per_clock_per_sm = rates(64, 128, 0, 512, 256, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(128, 0, 1024, 2048, 2048, 0, 4096),
     .source = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020); NVIDIA A100 datasheet"},
    // A40: 84 SMs × 1740 MHz × 256 = 37.4 TFLOP/s fp32 (datasheet 37.4); tensor × 512 = 74.8 tf32
    // (74.8); × 1024 = 149.7 fp16/bf16 (149.7); × 2048 = 299 int8 (299.3). fp16/bf16 non-tensor =
    // fp32 and fp64 = 1/64 fp32 (GA102 whitepaper, RTX 3090: 35.6, 35.6, 0.56 TFLOP/s).
    {.cc_major = 8,
     .cc_minor = 6,
     .architecture = "Ampere (GA10x)",
     .example_parts = "A40, A10, RTX A6000, RTX 30xx",
     .cuda_core_flop_per_clock_per_sm = rates(4, 256, 0, 256, 256, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(0, 0, 512, 1024, 1024, 0, 2048),
     .source = "NVIDIA Ampere GA102 GPU Architecture whitepaper (2020); NVIDIA A40 datasheet"},
    // Jetson AGX Orin 64GB: 16 SMs × 1300 MHz × 256 = 5.3 TFLOP/s fp32 (brief 5.3); tensor × 4096
    // = 85 int8 dense (brief: 170 sparse). The brief gives only fp32 and int8: the fp16/bf16/tf32
    // tensor rates follow GA100's int8:fp16:tf32 = 4:2:1 (its tensor cores are GA100-class, twice
    // GA10x); fp16 non-tensor 2 × fp32 and bf16 non-tensor and fp64 as on GA100/GA10x (unsourced).
    {.cc_major = 8,
     .cc_minor = 7,
     .architecture = "Ampere (Orin)",
     .example_parts = "Jetson AGX Orin, Orin NX, Orin Nano",
     .cuda_core_flop_per_clock_per_sm = rates(4, 256, 0, 512, 256, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(0, 0, 1024, 2048, 2048, 0, 4096),
     .source = "NVIDIA Jetson AGX Orin Series Technical Brief (v1.2, 2022)"},
    // L40S: 142 SMs × 2520 MHz × 256 = 91.6 TFLOP/s fp32 (datasheet 91.6); tensor × 512 = 183
    // tf32 (183); × 1024 = 366 fp16/bf16 (362); × 2048 = 733 fp8/int8 (733). RTX 4090 (Ada
    // whitepaper): fp16/bf16 non-tensor = fp32 = 82.6; fp64 1.3 = 128 SMs × 2520 MHz × 4.
    {.cc_major = 8,
     .cc_minor = 9,
     .architecture = "Ada Lovelace",
     .example_parts = "L40S, L4, RTX 6000 Ada, RTX 40xx",
     .cuda_core_flop_per_clock_per_sm = rates(4, 256, 0, 256, 256, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(0, 0, 512, 1024, 1024, 2048, 2048),
     .source = "NVIDIA Ada GPU Architecture whitepaper (2022); NVIDIA L40S datasheet"},
    // H100 SXM: 132 SMs × 1830 MHz × 4096 = 989 TFLOP/s bf16 dense (datasheet 989.4); × 2048 =
    // 495 tf32 (494.7); × 8192 = 1979 fp8/int8 (1979). Non-tensor at 1980 MHz: × 256 = 66.9 fp32
    // (66.9); × 128 = 33.5 fp64 (33.5); × 512 = 134 fp16/bf16 (133.8); tensor × 256 = 66.9 fp64.
    {.cc_major = 9,
     .cc_minor = 0,
     .architecture = "Hopper",
     .example_parts = "H100, H200, GH200",
     .cuda_core_flop_per_clock_per_sm = rates(128, 256, 0, 512, 512, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(256, 0, 2048, 4096, 4096, 8192, 8192),
     .source = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022); NVIDIA H100 datasheet"},
    // B200 (HGX): 148 SMs × 1980 MHz × 256 = 75 TFLOP/s fp32 (datasheet 75); × 128 = 37.5 fp64 and
    // fp64 tensor (37). Tensor at the ~1856 MHz the datasheet implies: × 4096 = 1.1 PFLOP/s tf32
    // (2.2 sparse); × 8192 = 2.25 fp16/bf16 (4.5 sparse); × 16384 = 4.5 fp8/int8 (9 sparse).
    // fp16/bf16 non-tensor (2 × fp32, 150 TFLOP/s) is from third-party databases, not NVIDIA.
    {.cc_major = 10,
     .cc_minor = 0,
     .architecture = "Blackwell",
     .example_parts = "B200, GB200",
     .cuda_core_flop_per_clock_per_sm = rates(128, 256, 0, 512, 512, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(128, 0, 4096, 8192, 8192, 16384, 16384),
     .source = "NVIDIA HGX B200 / DGX B200 datasheet (2024); NVIDIA Blackwell Architecture "
               "Technical Brief (2024)"},
    // RTX PRO 6000 Blackwell: 188 SMs × 2617 MHz × 256 = 126 TFLOP/s fp32 (datasheet 125).
    // RTX 5090 (RTX Blackwell whitepaper): 170 SMs × 2407 MHz × 1024 = 419 fp16 tensor (419);
    // × 2048 = 838 fp8/int8 (838); × 512 = 210 tf32 (209.5); fp16 non-tensor = fp32 = 104.8;
    // fp64 1/64 of fp32 as on GA10x and Ada.
    {.cc_major = 12,
     .cc_minor = 0,
     .architecture = "Blackwell (GB20x)",
     .example_parts = "RTX PRO 6000 Blackwell, RTX 50xx",
     .cuda_core_flop_per_clock_per_sm = rates(4, 256, 0, 256, 256, 0, 0),
     .tensor_flop_per_clock_per_sm = rates(0, 0, 512, 1024, 1024, 2048, 2048),
     .source = "NVIDIA RTX Blackwell GPU Architecture whitepaper (2025); NVIDIA RTX PRO 6000 "
               "Blackwell datasheet"},
}};

}  // namespace

std::string_view precision_name(Precision p) {
  return kPrecisionNames[static_cast<std::size_t>(p)];
}

std::optional<Precision> precision_from_name(std::string_view name) {
  for (Precision p : kAllPrecisions) {
    if (precision_name(p) == name) return p;
  }
  return std::nullopt;
}

std::span<const ArchPeaks> arch_peaks_table() { return kArchPeaks; }

const ArchPeaks* find_arch_peaks(int cc_major, int cc_minor) {
  for (const ArchPeaks& a : kArchPeaks) {
    if (a.cc_major == cc_major && a.cc_minor == cc_minor) return &a;
  }
  return nullptr;
}

// peak = flop/clk/SM × SMs × clock (how NVIDIA's whitepapers derive their peak-rate tables).
double peak_flop_per_s(double flop_per_clock_per_sm, int sm_count, double sm_clock_hz) {
  return flop_per_clock_per_sm * sm_count * sm_clock_hz;
}

// BW = 2 × memory clock × bus bits / 8 (nvbench device_info; NVIDIA blog "How to Implement
// Performance Metrics in CUDA C/C++", 2012).
double peak_dram_bytes_per_s(double memory_clock_hz, int bus_width_bits) {
  return 2.0 * memory_clock_hz * bus_width_bits / 8.0;
}

}  // namespace bb::theory
