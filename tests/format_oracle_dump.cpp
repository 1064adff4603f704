// Writes boundbench's reference conversions for the ml_dtypes oracle (tests/ml_dtypes_oracle.py):
//   format_oracle_dump FORMAT OUT.bin
// OUT.bin: u32 code count C, then C decoded values (f64); u32 input count N, then N fp32 inputs
// (u32 bit patterns) and their N codes (u32), rounded to nearest even, overflowing the way the
// format's users (and ml_dtypes) do: to infinity (fp16, bf16, e5m2), to NaN (e4m3), saturating
// where there is neither (e2m3, e3m2, e2m1). Inputs: every exponent (specials included) × both
// signs × 2^11 mantissas: every 6-bit prefix with boundary tails (ties among them), then random.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "reference/formats.h"
#include "reference/formats_fast.h"
#include "reference/random.h"

int main(int argc, char** argv) {
  using namespace bb;
  if (argc != 3) {
    std::fprintf(stderr, "usage: format_oracle_dump FORMAT OUT.bin\n");
    return 2;
  }
  const auto format = theory::format_from_name(argv[1]);
  if (!format) {
    std::fprintf(stderr, "format_oracle_dump: unknown format '%s'\n", argv[1]);
    return 2;
  }
  const theory::FormatSpec& f = theory::format_spec(*format);
  const bool saturate = f.specials == theory::Specials::none;
  const reference::Fp32Target target = reference::fp32_target(f, saturate);
  std::vector<std::uint32_t> inputs;
  for (std::uint32_t sign = 0; sign < 2; ++sign)
    for (std::uint32_t e = 0; e < 256; ++e)
      for (std::uint32_t k = 0; k < 2048; ++k) {
        // Every 6-bit mantissa prefix, followed by: zeros, one, all ones, the target's exact tie
        // (half its last place), the tie ± 1, then pseudo-random bits.
        const std::uint32_t top = (k & 63) << 17, low_mask = (1u << 17) - 1;
        const std::uint32_t tie = f.mantissa_bits < 23 ? 1u << (22 - f.mantissa_bits) : 0;
        const std::uint32_t random =
            static_cast<std::uint32_t>(reference::splitmix64((sign << 20) ^ (e << 11) ^ k));
        const std::uint32_t tail[] = {0, 1, low_mask, tie, tie + 1, tie - 1, random};
        const std::uint32_t m =
            (top | (tail[std::min<std::uint32_t>(k / 64, 6)] & ((1u << 23) - 1))) &
            ((1u << 23) - 1);
        inputs.push_back((sign << 31) | (e << 23) | m);
      }
  std::vector<std::uint32_t> codes(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    codes[i] = reference::encode_fp32_nearest(target, inputs[i]);
  const auto count = static_cast<std::uint32_t>(reference::code_count(f));
  std::vector<double> decoded(count);
  for (std::uint32_t c = 0; c < count; ++c) decoded[c] = reference::decode(f, c);
  std::FILE* out = std::fopen(argv[2], "wb");
  if (!out) {
    std::fprintf(stderr, "format_oracle_dump: cannot write %s\n", argv[2]);
    return 2;
  }
  const auto n = static_cast<std::uint32_t>(inputs.size());
  bool ok = std::fwrite(&count, 4, 1, out) == 1 &&
            std::fwrite(decoded.data(), 8, count, out) == count &&
            std::fwrite(&n, 4, 1, out) == 1 && std::fwrite(inputs.data(), 4, n, out) == n &&
            std::fwrite(codes.data(), 4, n, out) == n;
  ok = std::fclose(out) == 0 && ok;
  if (!ok) std::fprintf(stderr, "format_oracle_dump: writing %s failed\n", argv[2]);
  return ok ? 0 : 1;
}
