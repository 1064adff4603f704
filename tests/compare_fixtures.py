"""Small results files for tests of `boundbench compare` and for ci/compare_bench.py: schema 2 with
samples and a machine fingerprint, and the transformations the acceptance tests apply."""
import copy
import json
import math
import random

TIMING_FIELDS = ("median_s", "min_s", "mean_s", "max_s", "real_time", "median_ci_low_s",
                 "median_ci_high_s")


def fingerprint(l3_bytes=32 << 20):
    return {"cpu": {"vendor": "AuthenticAMD", "family": 26, "model": 2, "stepping": 1,
                    "microcode": "0x1", "model_name": "AMD EPYC"},
            "topology": {"sockets": 1, "cores": 2, "threads": 2},
            "caches": {"L1d": 48 << 10, "L2": 1 << 21, "L3": l3_bytes},
            "memory_gib": 24, "hypervisor": "KVM"}


def entry(name, samples):
    """samples_s in the order given, as boundbench writes them (the order taken)."""
    s = sorted(samples)
    mean = sum(s) / len(s)
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / max(len(s) - 1, 1))
    return {"name": name, "run_name": name, "run_type": "iteration", "repetition_index": 0,
            "suite": name.split("/")[0], "case": name.split("/", 1)[-1], "backend": "host",
            "iterations": len(s), "samples": len(s), "median_s": s[len(s) // 2], "min_s": s[0],
            "max_s": s[-1], "mean_s": mean, "real_time": s[len(s) // 2] * 1e9,
            "rel_noise": sd / mean, "samples_s": list(samples), "params": {"working_set_bytes": 1 << 20}}


def run_doc(cases, l3_bytes=32 << 20):
    """cases: list of (name, samples in s)."""
    return {"context": {"boundbench": {
                "schema_version": 2, "label": "fixture",
                "host": {"cpu_model": "AMD EPYC", "logical_cpus": 2, "physical_cores": 2,
                         "memory_bytes": 24 << 30, "caches": []},
                "gpus": {"usable": False, "devices": []},
                "fingerprint": fingerprint(l3_bytes)}},
            "benchmarks": [entry(n, s) for n, s in cases], "checks": []}


def draw(rng, median_s, noise, n):
    return [median_s * math.exp(rng.gauss(0, noise)) for _ in range(n)]


def scaled(doc, factor, only=None):
    """A copy with every timing field (and each sample) of each case (or only `only`) × factor."""
    out = copy.deepcopy(doc)
    for b in out["benchmarks"]:
        if only is not None and b["name"] != only:
            continue
        for k in TIMING_FIELDS:
            if k in b:
                b[k] *= factor
        if "samples_s" in b:
            b["samples_s"] = [x * factor for x in b["samples_s"]]
    return out


def dump(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f)


def fixture_pair(n_cases=100, samples=6, noise=0.03, seed=1):
    rng = random.Random(seed)
    base = run_doc([(f"s/c{i}", draw(rng, 1e-3 * (1 + i % 7), noise, samples))
                    for i in range(n_cases)])
    again = run_doc([(f"s/c{i}", draw(rng, 1e-3 * (1 + i % 7), noise, samples))
                     for i in range(n_cases)])
    return base, again
