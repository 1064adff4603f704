#!/usr/bin/env python3
"""Host peers written the way a numpy user would (numpy on its bundled OpenBLAS), timed in this
process: fp32 attention softmax(Q·Kᵀ/√d)·V (B 1, H 4, d 64, non-causal) and int8 symmetric
quantization of 2^24 fp32 values per tensor and per group of 128 (scale = amax/127, round, clip).
Prints one JSON object: seconds per repetition for each, and numpy's BLAS.
  host_peer.py [--n 4096] [--reps 5] [--only attention|quantize]
"""
import argparse
import json
import time

import numpy as np


def attention(q, k, v):
    s = np.matmul(q, k.transpose(0, 2, 1)) * np.float32(1 / np.sqrt(q.shape[-1]))
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)
    return np.matmul(s, v)


def quantize(x, group):
    xg = x.reshape(-1, group)
    scale = np.abs(xg).max(axis=1, keepdims=True) / np.float32(127)
    return np.clip(np.round(xg / scale), -127, 127).astype(np.int8), scale


def times(fn, reps):
    fn()  # warm-up
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", choices=["attention", "quantize"])
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    res = {"numpy": np.__version__}
    try:
        cfg = np.show_config(mode="dicts")
        res["blas"] = cfg["Build Dependencies"]["blas"]["name"]
    except Exception:  # older numpy: no dict mode
        res["blas"] = "unknown"
    if a.only in (None, "attention"):
        heads, d = 4, 64
        q, k, v = (rng.standard_normal((heads, a.n, d), dtype=np.float32) for _ in range(3))
        res["attention"] = {"batch": 1, "heads": heads, "n": a.n, "d": d,
                            "flop": 4.0 * heads * a.n * a.n * d,
                            "seconds": times(lambda: attention(q, k, v), a.reps)}
    if a.only in (None, "quantize"):
        x = rng.uniform(-1.5, 2.5, 1 << 24).astype(np.float32)
        res["quantize"] = {
            g: {"elements": x.size, "seconds": times(lambda: quantize(x, size), a.reps)}
            for g, size in (("per-tensor", x.size), ("per-group128", 128))}
    print(json.dumps(res))


if __name__ == "__main__":
    main()
