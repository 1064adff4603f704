#!/usr/bin/env python3
"""A peer measurement with PyTorch on the same GPU: device-to-device copy and a triad
(a = b + s*c via torch.add(..., alpha=s, out=a)), timed with CUDA events, median of 50 after 5
warm-ups, bytes counted as read + written (BabelStream's accounting). Usage: torch_peer.py OUT.json"""
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
    json.dump(result, open(sys.argv[1], "w"), indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
