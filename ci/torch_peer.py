#!/usr/bin/env python3
"""A peer measurement with PyTorch on the same GPU: device-to-device copy and a triad
(a = b + s*c via torch.add(..., alpha=s, out=a)), timed with CUDA events, median of 50 after 5
warm-ups, bytes counted as read + written (BabelStream's accounting); and attention, what users
would pick instead of the attention suite's fused kernel: scaled_dot_product_attention with the
flash backend on the suite's shapes (bf16, B = 4, H = 8, d = 128, not causal), TFLOP/s counted as
4·B·H·n²·d per forward. Usage: torch_peer.py OUT.json"""
import json
import statistics
import sys

import torch


def median_ms(fn, reps=50, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def attention_peer():
    import torch.nn.functional as F
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        flash = lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION)
    except ImportError:  # older PyTorch
        flash = lambda: torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False,
                                                       enable_mem_efficient=False)
    rows = []
    batch, heads, d = 4, 8, 128
    for n in (512, 1024, 2048, 4096, 8192, 16384):
        q, k, v = (torch.rand(batch, heads, n, d, dtype=torch.bfloat16, device="cuda") * 2 - 1
                   for _ in range(3))
        try:
            with flash():
                ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v), reps=20)
        except RuntimeError as e:  # the flash backend refused this shape or device
            rows.append({"n": n, "error": str(e).splitlines()[0]})
            continue
        flop = 4 * batch * heads * n * n * d
        rows.append({"n": n, "batch": batch, "heads": heads, "d": d, "dtype": "bf16",
                     "backend": "flash", "median_s": ms / 1e3, "flop_per_s": flop / (ms / 1e3)})
    return rows


def main():
    n = 1 << 28  # 2 GiB per fp64 array: far beyond any L2
    b = torch.rand(n, dtype=torch.float64, device="cuda") + 0.5
    c = torch.rand(n, dtype=torch.float64, device="cuda") + 0.5
    a = torch.empty_like(b)
    copy_ms = median_ms(lambda: a.copy_(b))
    triad_ms = median_ms(lambda: torch.add(b, c, alpha=0.4, out=a))
    assert torch.allclose(a, b + 0.4 * c)
    props = torch.cuda.get_device_properties(0)
    result = {
        "device": props.name,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "elements": n,
        "element_bytes": 8,
        "copy_median_s": copy_ms / 1e3,
        "copy_bytes_per_s": 2 * 8 * n / (copy_ms / 1e3),
        "triad_median_s": triad_ms / 1e3,
        "triad_bytes_per_s": 3 * 8 * n / (triad_ms / 1e3),
    }
    del a, b, c
    result["attention"] = attention_peer()
    json.dump(result, open(sys.argv[1], "w"), indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
