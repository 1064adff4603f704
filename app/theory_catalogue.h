// The catalogue of `boundbench theory`: every formula of theory/ reachable by name with named
// parameters, their help, and the parsing and validation of their arguments.
// Parameters and outputs are SI, with the unit in the name (_bytes, _flop, _s, _per_s, _hz).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace bb::app {

struct ParamSpec {
  std::string name;  // snake_case; on the command line as --name or --name-with-dashes
  std::string help;
  std::vector<std::string> choices;  // empty: a finite number ≥ 0
  bool positive = false;             // a number that must be > 0 (a divisor)
  bool integer = false;              // a whole number (a count)
  std::string default_value;         // empty: required
  bool any_sign = false;             // a value that may be negative (a range's minimum)
};

struct FormulaOutput {
  std::string name;  // carries its unit: "bound_time_s"
  double value = 0;
  std::string text;  // set for a textual output (e.g. the binding limit); `value` is then unused
};

// Parses a number with an optional unit suffix: binary Ki/Mi/Gi/Ti (optionally followed by B) or
// decimal k/M/G/T; "48KiB" = 49152, "4.8T" = 4.8e12. "KB", "MB", "GB" are refused as ambiguous.
// Throws std::invalid_argument (without the parameter's name) when malformed.
double parse_quantity(const std::string& text);

// Named, validated arguments: numbers for numeric parameters, the text for choice parameters.
struct FormulaArgs {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> choices;
  double number(const std::string& name) const { return numbers.at(name); }
  const std::string& choice(const std::string& name) const { return choices.at(name); }
};

struct Formula {
  std::string name;    // "roofline-time"
  std::string law;     // the formula as text
  std::string source;  // paper / document it comes from
  std::vector<ParamSpec> params;
  std::function<std::vector<FormulaOutput>(const FormulaArgs&)> evaluate;
};

std::vector<Formula> all_formulas();
// The collectives' and parallelism calculator's part of all_formulas()
// (theory_catalogue_parallel.cpp).
std::vector<Formula> parallelism_formulas();
// The attention suite's part (theory_catalogue_attention.cpp).
std::vector<Formula> attention_formulas();
// Floating-point quantization (fp8, MX, NVFP4) and GEMM error (theory_catalogue_precision.cpp).
std::vector<Formula> precision_formulas();

// Finds a formula by name; throws std::invalid_argument naming the known ones when absent.
Formula find_formula(std::string_view name);

// Validates raw "name → text" arguments against the formula's parameters (unknown, missing,
// malformed, negative or non-finite values, invalid choices) and evaluates it. Throws
// std::invalid_argument with a one-line message naming the problem.
std::vector<FormulaOutput> evaluate_formula(const Formula& f,
                                            const std::map<std::string, std::string>& raw_args);

}  // namespace bb::app
