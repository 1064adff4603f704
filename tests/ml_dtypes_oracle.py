#!/usr/bin/env python3
"""boundbench's reference conversions against ml_dtypes, an independent implementation of bf16,
fp8 (E4M3, E5M2), fp6 (E2M3, E3M2) and fp4 (E2M1) (and numpy's float16): every code decodes to
the same value, and 1M fp32 inputs per format (every exponent and sign, boundary tails, ties,
random bits) round to the same code. Disagreements are counted and must be the documented ones:
a NaN input to a format without NaN (fp6, fp4) is +max in boundbench (CUDA's cuda_fp6.h/
cuda_fp4.h convention) and 0 in ml_dtypes; NaN codes are compared as "is NaN" (payloads differ).

Usage: ml_dtypes_oracle.py FORMAT_ORACLE_DUMP   (exit 77: ml_dtypes not installed, ctest SKIP)
"""
import os
import struct
import subprocess
import sys
import tempfile

try:
    import ml_dtypes
    import numpy as np
except ImportError as e:
    print(f"SKIP: {e} (ci/setup.sh installs ml_dtypes in build/oracle-venv)")
    sys.exit(77)

FORMATS = {  # boundbench name -> (dtype, code dtype, has NaN)
    "fp16": (np.float16, np.uint16, True),
    "bf16": (ml_dtypes.bfloat16, np.uint16, True),
    "e4m3": (ml_dtypes.float8_e4m3fn, np.uint8, True),
    "e5m2": (ml_dtypes.float8_e5m2, np.uint8, True),
    "e2m3": (ml_dtypes.float6_e2m3fn, np.uint8, False),
    "e3m2": (ml_dtypes.float6_e3m2fn, np.uint8, False),
    "e2m1": (ml_dtypes.float4_e2m1fn, np.uint8, False),
}


def read_dump(path):
    data = open(path, "rb").read()
    (count,) = struct.unpack_from("<I", data, 0)
    decoded = np.frombuffer(data, np.float64, count, 4)
    at = 4 + 8 * count
    (n,) = struct.unpack_from("<I", data, at)
    inputs = np.frombuffer(data, np.uint32, n, at + 4)
    codes = np.frombuffer(data, np.uint32, n, at + 4 + 4 * n)
    return decoded, inputs, codes


def check(dump_tool, name):
    dtype, code_type, has_nan = FORMATS[name]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, name + ".bin")
        subprocess.run([dump_tool, name, path], check=True)
        decoded, inputs, codes = read_dump(path)
    bits = np.dtype(dtype).itemsize * 8 if name not in ("e2m3", "e3m2", "e2m1") else \
        {"e2m3": 6, "e3m2": 6, "e2m1": 4}[name]
    # Decode: every code.
    all_codes = np.arange(1 << bits, dtype=code_type)
    theirs = all_codes.view(dtype).astype(np.float64)
    both_nan = np.isnan(theirs) & np.isnan(decoded)
    decode_bad = int(np.sum(~both_nan & (theirs != decoded)))
    # Encode: the same inputs.
    x = inputs.view(np.float32)
    ours = codes.astype(np.uint32)
    theirs_codes = x.astype(dtype).view(code_type).astype(np.uint32)
    theirs_values = x.astype(dtype).astype(np.float64)
    nan_in = np.isnan(x)
    same = ours == theirs_codes
    if has_nan:  # a NaN is a NaN whatever its payload and sign
        same |= nan_in & np.isnan(theirs_values) & np.isnan(decoded[ours])
    disagree = ~same
    documented = disagree & nan_in & (not has_nan)
    undocumented = disagree & ~documented
    note = (f" ({int(documented.sum())} documented: NaN into a format without NaN, boundbench "
            f"+max, ml_dtypes codes {sorted(set(theirs_codes[documented].tolist()))})"
            if documented.any() else "")
    print(f"{name}: {len(all_codes)} codes decoded, {decode_bad} differ; {len(x)} inputs encoded, "
          f"{int(disagree.sum())} differ{note}")
    for i in np.flatnonzero(undocumented)[:5]:
        print(f"  input 0x{int(inputs[i]):08x} ({float(x[i])!r}): boundbench 0x{int(ours[i]):x}, "
              f"ml_dtypes 0x{int(theirs_codes[i]):x}")
    return decode_bad == 0 and not undocumented.any()


def main():
    dump_tool = sys.argv[1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow and NaN inputs are the point
        ok = all([check(dump_tool, name) for name in FORMATS])
    print("ml_dtypes oracle:", "agrees" if ok else "DISAGREES")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
