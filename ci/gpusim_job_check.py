#!/usr/bin/env python3
"""Judges the GPU job rehearsed under the functional simulator (ci/gpusim.sh job): every CUDA case of
a results file (boundbench run --backend cuda on a simulated device) either validated against its
CPU reference (its "<case>/validate" check PASS) or says it cannot run there, for a reason the
simulator imposes ("<case>/run" SKIP: "cannot run under the simulator: ..."; only cuBLAS, cuBLASLt
and NCCL device code, and bf16 WMMA, which GPGPU-Sim lacks). Anything else, a FAIL anywhere, or a suite in --require-suites with no
validated case is a failure. Prints per suite: validated / cannot run (why, counted) / failed.

    python3 ci/gpusim_job_check.py RUN.json [--require-suites bandwidth,precision,...]

Exit 0: all as required; 1: a failure (listed); 2: unreadable file."""
import argparse
import collections
import json
import sys

CANNOT_RUN = "cannot run under the simulator: "
# What the simulator cannot run that the job accepts: libraries' SASS-only device code, and one
# instruction GPGPU-Sim lacks (bf16 WMMA: the fused bf16 attention; to go when a project patch in
# ci/gpusim/ implements it).
ALLOWED = ("cuBLAS device code", "cuBLASLt device code", "NCCL device code", "bf16 WMMA ")


def allowed_cannot_run(reason):
    """A simulator's limit the job accepts (ALLOWED)."""
    return reason.startswith(CANNOT_RUN) and reason[len(CANNOT_RUN):].startswith(ALLOWED)


def judge(run):
    """Per suite: {"validated": [...], "cannot run": {reason: [...]}, "failed": [(case, why)]}."""
    checks = {(c["suite"], c["name"]): c for c in run.get("checks", [])}
    suites = collections.defaultdict(
        lambda: {"validated": [], "cannot run": collections.defaultdict(list), "failed": []})
    seen = set()
    for b in run.get("benchmarks", []):
        if b.get("backend") != "cuda" or b.get("run_type", "iteration") != "iteration":
            continue
        suite, case = b["suite"], b["case"]
        if (suite, case) in seen:
            continue
        seen.add((suite, case))
        s = suites[suite]
        validate = checks.get((suite, case + "/validate"))
        ran = checks.get((suite, case + "/run"))
        if validate is not None and validate["verdict"] == "PASS":
            s["validated"].append(case)
        elif ran is not None and ran["verdict"] == "SKIP" and allowed_cannot_run(ran["reason"]):
            s["cannot run"][ran["reason"]].append(case)
        elif ran is not None and ran["verdict"] == "SKIP" and \
                ran["reason"].startswith("does not fit this device"):
            s["cannot run"]["does not fit this device (as on a GPU of its limits)"].append(case)
        else:
            why = (validate or ran or {}).get("reason") or b.get("error_message") or "no verdict"
            s["failed"].append((case, why))
    for c in run.get("checks", []):
        if c["verdict"] == "FAIL":
            case = c["name"].rsplit("/", 1)[0]
            if not any(case == f[0] for f in suites[c["suite"]]["failed"]):
                suites[c["suite"]]["failed"].append((c["name"], c.get("reason", "")))
    return suites


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("run_json")
    p.add_argument("--require-suites", default="",
                   help="comma-separated suites that must validate at least one CUDA case")
    args = p.parse_args()
    try:
        with open(args.run_json) as f:
            run = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"gpusim_job_check: cannot read {args.run_json}: {e}")
        return 2
    suites = judge(run)
    bad = 0
    for name in sorted(suites):
        s = suites[name]
        cannot = sum(len(v) for v in s["cannot run"].values())
        print(f"{name}: {len(s['validated'])} validated (PASS), {cannot} cannot run, "
              f"{len(s['failed'])} failed")
        for why, cases in sorted(s["cannot run"].items()):
            print(f"  cannot run ({len(cases)}): {why}")
        for case, why in s["failed"]:
            print(f"  FAIL {case}: {why[:300]}")
        bad += len(s["failed"])
    for name in filter(None, args.require_suites.split(",")):
        if not suites.get(name, {}).get("validated"):
            print(f"FAIL suite {name}: no CUDA case validated")
            bad += 1
    total_ok = sum(len(s["validated"]) for s in suites.values())
    total_cannot = sum(len(v) for s in suites.values() for v in s["cannot run"].values())
    print(f"gpusim_job_check: {total_ok} validated, {total_cannot} cannot run, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
