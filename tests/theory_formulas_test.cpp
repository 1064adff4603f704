// Tests for theory/roofline.h, theory/stream.h and the catalogue of `boundbench theory`
// (app/theory_catalogue.h): hand-worked roofline numbers, BabelStream byte accounting, and argument
// validation messages.
#include "app/theory_catalogue.h"
#include "theory/roofline.h"
#include "theory/stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace bb::theory {
namespace {

using namespace app;  // the catalogue
using Args = std::map<std::string, std::string>;

TEST(RooflineTime, MemoryBound) {
  // 1e12 flop / 1e15 = 1e-3 s; 8e12 bytes / 4e12 = 2 s.
  const RooflineTime t = roofline_time(1e12, 8e12, 1e15, 4e12);
  EXPECT_DOUBLE_EQ(t.compute_s, 1e-3);
  EXPECT_DOUBLE_EQ(t.memory_s, 2.0);
  EXPECT_DOUBLE_EQ(t.bound_s, 2.0);
  EXPECT_TRUE(t.memory_bound);
}

TEST(RooflineTime, ComputeBound) {
  // 1e15 flop / 1e15 = 1 s; 4e9 bytes / 4e12 = 1e-3 s.
  const RooflineTime t = roofline_time(1e15, 4e9, 1e15, 4e12);
  EXPECT_DOUBLE_EQ(t.compute_s, 1.0);
  EXPECT_DOUBLE_EQ(t.memory_s, 1e-3);
  EXPECT_DOUBLE_EQ(t.bound_s, 1.0);
  EXPECT_FALSE(t.memory_bound);
}

TEST(RooflineTime, ExactlyAtTheRidgeCountsAsMemoryBound) {
  // 1e12 / 1e15 = 1e-3 s and 4e9 / 4e12 = 1e-3 s.
  const RooflineTime t = roofline_time(1e12, 4e9, 1e15, 4e12);
  EXPECT_DOUBLE_EQ(t.compute_s, 1e-3);
  EXPECT_DOUBLE_EQ(t.memory_s, 1e-3);
  EXPECT_DOUBLE_EQ(t.bound_s, 1e-3);
  EXPECT_TRUE(t.memory_bound);
}

TEST(RooflineTime, ZeroWorkNeedsNoRate) {
  // No flop: the (unknown, zero) peak is never divided by; likewise no bytes.
  const RooflineTime mem_only = roofline_time(0, 2e9, 0, 1e12);
  EXPECT_EQ(mem_only.compute_s, 0.0);
  EXPECT_DOUBLE_EQ(mem_only.bound_s, 2e-3);
  const RooflineTime flop_only = roofline_time(3e12, 0, 1e15, 0);
  EXPECT_EQ(flop_only.memory_s, 0.0);
  EXPECT_DOUBLE_EQ(flop_only.bound_s, 3e-3);
  EXPECT_FALSE(flop_only.memory_bound);
}

TEST(Roofline, ArithmeticIntensity) {
  // fp64 triad: 2 flop per 3 × 8 bytes.
  EXPECT_DOUBLE_EQ(arithmetic_intensity_flop_per_byte(2, 24), 1.0 / 12);
  EXPECT_DOUBLE_EQ(arithmetic_intensity_flop_per_byte(2e9, 8e8), 2.5);
}

TEST(Roofline, RidgePointH100Like) {
  // 989e12 / 3.35e12 = 295.22 flop/byte.
  EXPECT_NEAR(ridge_point_flop_per_byte(989e12, 3.35e12), 295.22, 0.01);
  EXPECT_DOUBLE_EQ(ridge_point_flop_per_byte(1e15, 4e12), 250.0);
}

TEST(Roofline, AttainableBothSidesOfTheRidge) {
  // Ridge at 1e15 / 4e12 = 250 flop/byte.
  EXPECT_DOUBLE_EQ(attainable_flop_per_s(10, 1e15, 4e12), 4e13);  // memory side: I × BW
  EXPECT_DOUBLE_EQ(attainable_flop_per_s(249, 1e15, 4e12), 9.96e14);
  EXPECT_DOUBLE_EQ(attainable_flop_per_s(250, 1e15, 4e12), 1e15);   // at the ridge
  EXPECT_DOUBLE_EQ(attainable_flop_per_s(1000, 1e15, 4e12), 1e15);  // compute side: peak
  EXPECT_EQ(attainable_flop_per_s(0, 1e15, 4e12), 0.0);
}

TEST(StreamTable, BabelStreamArraysAndFlop) {
  struct Expected {
    const char* name;
    int arrays;
    int flop;
  };
  const Expected expected[] = {{"copy", 2, 0},  {"mul", 2, 1}, {"add", 3, 1},
                               {"triad", 3, 2}, {"dot", 2, 2}, {"nstream", 4, 3}};
  ASSERT_EQ(kStreamKernels.size(), std::size(expected));
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.name);
    const auto k = find_stream_kernel(e.name);
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->arrays_read + k->arrays_written, e.arrays);
    EXPECT_EQ(k->flop_per_element, e.flop);
  }
  EXPECT_EQ(find_stream_kernel("dot")->arrays_written, 0);
  EXPECT_FALSE(find_stream_kernel("scale").has_value());
  EXPECT_FALSE(find_stream_kernel("").has_value());
}

TEST(StreamTable, TriadBytesAndFlopHandWorked) {
  // 2^25 fp64 elements: read 2 × 2^25 × 8 = 536870912, write 268435456, flop 2 × 2^25.
  const StreamKernel triad = *find_stream_kernel("triad");
  const double n = 33554432;
  EXPECT_DOUBLE_EQ(stream_bytes_read(triad, n, 8), 536870912.0);
  EXPECT_DOUBLE_EQ(stream_bytes_written(triad, n, 8), 268435456.0);
  EXPECT_DOUBLE_EQ(stream_flop(triad, n), 67108864.0);
  const StreamKernel copy = *find_stream_kernel("copy");
  EXPECT_DOUBLE_EQ(stream_bytes_read(copy, 1000, 4), 4000.0);
  EXPECT_DOUBLE_EQ(stream_bytes_written(copy, 1000, 4), 4000.0);
  EXPECT_EQ(stream_flop(copy, 1000), 0.0);
}

// Valid arguments for every parameter: the first choice, or "1".
Args valid_args(const Formula& f) {
  Args args;
  for (const ParamSpec& p : f.params)
    args[p.name] = !p.default_value.empty() ? p.default_value
                   : p.choices.empty()      ? "1"
                                            : p.choices.front();
  return args;
}

double output(const std::vector<FormulaOutput>& outs, const std::string& name) {
  for (const auto& o : outs)
    if (o.name == name) return o.value;
  ADD_FAILURE() << "no output " << name;
  return std::nan("");
}

// The message of the std::invalid_argument `fn` throws; empty (and a failure) when none.
template <class Fn>
std::string invalid_argument_message(Fn&& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument thrown";
  return "";
}

TEST(FormulaRegistry, EveryFormulaEvaluatesWithValidArgs) {
  const auto formulas = all_formulas();
  EXPECT_GE(formulas.size(), 7u);
  for (const Formula& f : formulas) {
    SCOPED_TRACE(f.name);
    EXPECT_FALSE(f.law.empty());
    EXPECT_FALSE(f.source.empty());
    EXPECT_EQ(find_formula(f.name).name, f.name);
    const auto outs = evaluate_formula(f, valid_args(f));
    ASSERT_FALSE(outs.empty());
    for (const auto& o : outs) EXPECT_TRUE(std::isfinite(o.value)) << o.name;
  }
}

TEST(FormulaRegistry, RooflineTimeHandWorked) {
  const auto outs =
      evaluate_formula(find_formula("roofline-time"), {{"flop", "1e12"},
                                                       {"bytes", "8e12"},
                                                       {"peak_flop_per_s", "1e15"},
                                                       {"bandwidth_bytes_per_s", "4e12"}});
  EXPECT_DOUBLE_EQ(output(outs, "compute_time_s"), 1e-3);
  EXPECT_DOUBLE_EQ(output(outs, "memory_time_s"), 2.0);
  EXPECT_DOUBLE_EQ(output(outs, "bound_time_s"), 2.0);
  EXPECT_EQ(output(outs, "is_memory_bound"), 1.0);
  EXPECT_DOUBLE_EQ(output(outs, "arithmetic_intensity_flop_per_byte"), 0.125);
  EXPECT_DOUBLE_EQ(output(outs, "ridge_point_flop_per_byte"), 250.0);
}

TEST(FormulaRegistry, StreamBytesAndPeaksHandWorked) {
  const auto stream =
      evaluate_formula(find_formula("stream-bytes"),
                       {{"kernel", "triad"}, {"elements", "1000"}, {"element_bytes", "8"}});
  EXPECT_DOUBLE_EQ(output(stream, "bytes_read"), 16000.0);
  EXPECT_DOUBLE_EQ(output(stream, "bytes_written"), 8000.0);
  EXPECT_DOUBLE_EQ(output(stream, "bytes"), 24000.0);
  EXPECT_DOUBLE_EQ(output(stream, "flop"), 2000.0);

  const auto attainable =
      evaluate_formula(find_formula("attainable-flops"), {{"intensity_flop_per_byte", "10"},
                                                          {"peak_flop_per_s", "1e15"},
                                                          {"bandwidth_bytes_per_s", "4e12"}});
  EXPECT_DOUBLE_EQ(output(attainable, "attainable_flop_per_s"), 4e13);
  EXPECT_DOUBLE_EQ(output(attainable, "fraction_of_peak"), 0.04);

  // 4096 flop/clk/SM × 132 SMs × 1.83e9 Hz = 989.42e12.
  const auto peak = evaluate_formula(find_formula("peak-flops"), {{"arch", "sm_90"},
                                                                  {"precision", "bf16"},
                                                                  {"unit", "tensor_core"},
                                                                  {"sms", "132"},
                                                                  {"sm_clock_hz", "1.83e9"}});
  EXPECT_DOUBLE_EQ(output(peak, "flop_per_clock_per_sm"), 4096.0);
  EXPECT_DOUBLE_EQ(output(peak, "peak_flop_per_s"), 4096.0 * 132 * 1.83e9);

  // 2 × 1215e6 × 5120 / 8 = 1.5552e12.
  const auto dram = evaluate_formula(find_formula("peak-dram-bandwidth"),
                                     {{"memory_clock_hz", "1215e6"}, {"bus_width_bits", "5120"}});
  EXPECT_DOUBLE_EQ(output(dram, "bandwidth_bytes_per_s"), 1.5552e12);
}

TEST(FormulaRegistry, OverlappedAllReduceHandWorked) {
  // 4 MiB of fp32 gradients in four 1 MiB buckets on 4 devices, α = 0, 1 GB/s: each all-reduce
  // 1.5 × 2^20 / 1e9 s; over a 4 ms backward (a bucket ready every 1 ms) they queue from the first
  // one: exposed = 3·t_ar − 3 ms + t_ar, the backward after the first bucket (3 ms) hidden.
  const auto outs =
      evaluate_formula(find_formula("overlapped-all-reduce"), {{"parameters", "1048576"},
                                                               {"devices", "4"},
                                                               {"backward_s", "4e-3"},
                                                               {"alpha_s", "0"},
                                                               {"link_bytes_per_s", "1e9"}});
  const double t_ar = 1.5 * 0x1p20 / 1e9;
  EXPECT_DOUBLE_EQ(output(outs, "buckets"), 4);
  EXPECT_NEAR(output(outs, "all_reduce_s"), 4 * t_ar, 1e-12);
  EXPECT_NEAR(output(outs, "exposed_s"), 3 * t_ar - 3e-3 + t_ar, 1e-12);
  EXPECT_NEAR(output(outs, "hidden_s"), 3e-3, 1e-12);
}

TEST(FormulaRegistry, PipelineBubbleInterleavedHandWorked) {
  // p = 4, m = 8, v = 2: 3/11 of a GPipe step; interleaved 3/16 of the ideal, 3/19 of the step;
  // stage 0 holds 8 (GPipe), 4 (1F1B), 2·3 + 4 + 1 = 11 chunk activations (interleaved).
  const auto outs =
      evaluate_formula(find_formula("pipeline-bubble"),
                       {{"stages", "4"}, {"micro_batches", "8"}, {"chunks_per_device", "2"}});
  EXPECT_DOUBLE_EQ(output(outs, "bubble_fraction"), 3.0 / 11);
  EXPECT_DOUBLE_EQ(output(outs, "bubble_over_ideal"), 3.0 / 16);
  EXPECT_DOUBLE_EQ(output(outs, "interleaved_bubble_fraction"), 3.0 / 19);
  EXPECT_DOUBLE_EQ(output(outs, "peak_activations_gpipe"), 8);
  EXPECT_DOUBLE_EQ(output(outs, "peak_activations_1f1b"), 4);
  EXPECT_DOUBLE_EQ(output(outs, "peak_chunk_activations_interleaved"), 11);
}

TEST(FormulaErrors, UnknownFormulaListsKnownOnes) {
  const std::string msg = invalid_argument_message([] { find_formula("roofline"); });
  EXPECT_NE(msg.find("'roofline'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("roofline-time"), std::string::npos) << msg;
  EXPECT_NE(msg.find("stream-bytes"), std::string::npos) << msg;
}

TEST(FormulaErrors, UnknownParameter) {
  const Formula f = find_formula("ridge-point");
  Args args = valid_args(f);
  args["bandwidth"] = "1";
  const std::string msg = invalid_argument_message([&] { evaluate_formula(f, args); });
  EXPECT_NE(msg.find("--bandwidth "), std::string::npos) << msg;
  EXPECT_NE(msg.find("--bandwidth_bytes_per_s"), std::string::npos) << msg;  // the expected list
}

TEST(FormulaErrors, MissingParameter) {
  const Formula f = find_formula("roofline-time");
  Args args = valid_args(f);
  args.erase("bytes");
  const std::string msg = invalid_argument_message([&] { evaluate_formula(f, args); });
  EXPECT_NE(msg.find("missing --bytes"), std::string::npos) << msg;
}

TEST(FormulaErrors, MalformedNumbers) {
  const Formula f = find_formula("roofline-time");
  for (const char* bad : {"abc", "1e", "", "1.5x", " 1", "0x10", "1,5"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    Args args = valid_args(f);
    args["flop"] = bad;
    const std::string msg = invalid_argument_message([&] { evaluate_formula(f, args); });
    EXPECT_NE(msg.find("--flop"), std::string::npos) << msg;
    EXPECT_NE(msg.find("not a number"), std::string::npos) << msg;
  }
}

TEST(FormulaErrors, NegativeAndNonFinite) {
  const Formula f = find_formula("roofline-time");
  for (const char* bad : {"-1", "-1e-300", "inf", "-inf", "nan", "1e400"}) {
    SCOPED_TRACE(bad);
    Args args = valid_args(f);
    args["flop"] = bad;
    const std::string msg = invalid_argument_message([&] { evaluate_formula(f, args); });
    EXPECT_NE(msg.find("--flop"), std::string::npos) << msg;
  }
  Args args = valid_args(f);
  args["flop"] = "-1";
  const std::string msg = invalid_argument_message([&] { evaluate_formula(f, args); });
  EXPECT_NE(msg.find("must be finite and >= 0"), std::string::npos) << msg;
}

TEST(FormulaErrors, ZeroOnlyRejectedForPositiveParameters) {
  const Formula f = find_formula("roofline-time");
  Args args = valid_args(f);
  args["peak_flop_per_s"] = "0";
  const std::string msg = invalid_argument_message([&] { evaluate_formula(f, args); });
  EXPECT_NE(msg.find("--peak_flop_per_s"), std::string::npos) << msg;
  EXPECT_NE(msg.find("> 0"), std::string::npos) << msg;

  // `flop` is not a divisor: zero is fine.
  Args zero_flop = valid_args(f);
  zero_flop["flop"] = "0";
  EXPECT_EQ(output(evaluate_formula(f, zero_flop), "compute_time_s"), 0.0);

  // arithmetic-intensity divides by bytes, so there bytes must be positive.
  const Formula ai = find_formula("arithmetic-intensity");
  const std::string ai_msg = invalid_argument_message([&] {
    evaluate_formula(ai, {{"flop", "1"}, {"bytes", "0"}});
  });
  EXPECT_NE(ai_msg.find("--bytes"), std::string::npos) << ai_msg;
}

TEST(FormulaErrors, InvalidChoiceListsTheOptions) {
  const Formula f = find_formula("stream-bytes");
  Args args = valid_args(f);
  args["kernel"] = "scale";
  const std::string msg = invalid_argument_message([&] { evaluate_formula(f, args); });
  EXPECT_NE(msg.find("--kernel"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'scale'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("copy|mul|add|triad|dot|nstream"), std::string::npos) << msg;

  const Formula peak = find_formula("peak-flops");
  Args peak_args = valid_args(peak);
  peak_args["arch"] = "sm_61";
  const std::string arch_msg = invalid_argument_message([&] { evaluate_formula(peak, peak_args); });
  EXPECT_NE(arch_msg.find("--arch"), std::string::npos) << arch_msg;
}

}  // namespace
}  // namespace bb::theory
