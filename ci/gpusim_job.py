#!/usr/bin/env python3
"""The GPU runner's main job (ci/gpu_run.sh) rehearsed under GPGPU-Sim: called by `ci/gpusim.sh job
OUT_DIR` with the simulator's environment set (LD_LIBRARY_PATH, PTX_SIM_MODE_FUNC, ...).

Steps, each with its wall time, in OUT_DIR/job.md (and printed):
  run          boundbench run --backend cuda --quick (on the simulated device: every case
               validated against its CPU reference, none timed) -> run.json, run.md; the
               simulator's log in run.log
  collectives  boundbench collectives --transport nccl: must say it cannot run (NCCL device code)
  strategies   boundbench strategies --engine nccl: the same
  report       boundbench report run.json (HTML and plots; not under the simulator)
  compare      boundbench compare run.json run.json (a run against itself: no change)
  validate     ci/validate_results.py run.json
  check        ci/gpusim_job_check.py run.json: every CUDA case PASS or cannot run (cuBLAS,
               cuBLASLt, NCCL only), 0 FAIL, each GPU suite with a validated case
With --timing NAME (`ci/gpusim.sh job --timing --config NAME`): the simulator's timing model with
config NAME; `run` times its cases (events give simulated time) and the GPU laws judge them; the
NCCL steps and the validation gate (check) are the functional job's and are left out; instead
job.md counts each law's verdicts. Exit 1 if a step fails (a law that FAILs fails `run`)."""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpusim_run  # noqa: E402  (its ptxas-caching toolkit copy)

GPU_SUITES = "bandwidth,precision,occupancy,attention"
NCCL_CANNOT_RUN = "cannot run under the simulator: NCCL device code"


def host_env():
    """The environment without the simulator's runtime: report and compare run no kernels."""
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = env.get("GPUSIM_HOST_LD_LIBRARY_PATH", "")
    return env


class Job:
    def __init__(self, args):
        self.args = args
        self.rows = []  # (step, ok, seconds, what)

    def step(self, name, cmd, *, cwd=None, env=None, timeout=600, expect_output=None):
        """Runs `cmd`, its output to OUT/<name>.log. Passes on exit 0, or where `expect_output`
        is given, on a non-zero exit whose output holds it (a refusal the job expects)."""
        log = os.path.join(self.args.out, name + ".log")
        start = time.monotonic()
        with open(log, "w") as out:
            try:
                code = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                      timeout=timeout).returncode
            except subprocess.TimeoutExpired:
                code = None
        seconds = time.monotonic() - start
        with open(log, errors="replace") as f:
            text = f.read()
        last = next((line for line in reversed(text.splitlines()) if line.strip()), "(no output)")
        if code is None:
            ok, what = False, f"timed out after {timeout:.0f} s"
        elif expect_output is not None:
            ok = code != 0 and expect_output in text
            what = f"exit {code}: {last.strip()[:200]}"
        else:
            ok, what = code == 0, f"exit {code}" + ("" if code == 0 else f": {last.strip()[:200]}")
        self.rows.append((name, ok, seconds, what))
        print(f"gpusim job: {'ok  ' if ok else 'FAIL'} {name} ({seconds:.0f} s) {what}", flush=True)
        return ok, text


def verdict_counts(run_json):
    """{(suite, law kind): Counter(verdict)} over run.json's checks, and the FAILs' lines."""
    with open(run_json) as f:
        checks = json.load(f).get("checks", [])
    counts = collections.defaultdict(collections.Counter)
    fails = []
    for c in checks:
        counts[(c.get("suite", "?"), c.get("kind", "?"))][c.get("verdict", "?")] += 1
        if c.get("verdict") == "FAIL":
            fails.append(f"{c.get('suite')}/{c.get('name')}: {c.get('reason', '')}")
    return counts, fails


def write_timing_summary(f, run_json):
    counts, fails = verdict_counts(run_json)
    verdicts = ["PASS", "FAIL", "INCONCLUSIVE", "BELOW-EXPECTATION", "SKIP"]
    f.write("\n## Verdicts (timing model)\n\n| suite | kind | " + " | ".join(verdicts) +
            " |\n|---|---|" + "---:|" * len(verdicts) + "\n")
    for (suite, kind), c in sorted(counts.items()):
        f.write(f"| {suite} | {kind} | " + " | ".join(str(c[v]) for v in verdicts) + " |\n")
    if fails:
        f.write("\nFAIL:\n\n" + "".join(f"- {line}\n" for line in fails))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin", required=True, help="boundbench built for the simulator")
    p.add_argument("--config", required=True, help="directory holding gpgpusim.config")
    p.add_argument("--work", required=True, help="scratch: the simulator's working directory")
    p.add_argument("--out", required=True)
    p.add_argument("--timeout", type=float, default=1800, help="limit of `boundbench run`")
    p.add_argument("--run-args", default="--backend cuda --quick", help="boundbench run's selection")
    p.add_argument("--timing", metavar="CONFIG", help="the timing model with this config's name")
    args = p.parse_args()
    start = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    sim = os.path.join(args.work, "sim")
    shutil.rmtree(sim, ignore_errors=True)
    os.makedirs(sim)
    for f in os.listdir(args.config):
        shutil.copy(os.path.join(args.config, f), sim)
    os.environ["CUDA_INSTALL_PATH"] = gpusim_run.cached_toolkit(args.work)
    job = Job(args)
    out = lambda name: os.path.join(args.out, name)  # noqa: E731
    bb = args.bin

    job.step("run", [bb, "run", *args.run_args.split(), "--out", out("run.json"),
                     "--summary", out("run.md")], cwd=sim, timeout=args.timeout)
    timing = args.timing is not None
    if not timing:
        nccl_steps(job, bb, sim, args)
    have_run = os.path.exists(out("run.json"))
    if have_run:
        report = os.path.join(args.work, "report")
        shutil.rmtree(report, ignore_errors=True)
        job.step("report", [bb, "report", out("run.json"), "--out", report], env=host_env())
        if os.path.exists(os.path.join(report, "report.html")):
            shutil.copy(os.path.join(report, "report.html"), out("report.html"))
        job.step("compare", [bb, "compare", out("run.json"), out("run.json"),
                             "--markdown", out("compare.md")], env=host_env())
        job.step("validate", [sys.executable, os.path.join(HERE, "validate_results.py"),
                              out("run.json"), "--require-complete", "--schema-optional"],
                 env=host_env())
        if not timing:
            _, text = job.step("check", [sys.executable, os.path.join(HERE, "gpusim_job_check.py"),
                                         out("run.json"), "--require-suites", GPU_SUITES],
                               env=host_env())
            print(text, end="")
    else:
        job.rows.append(("run.json", False, 0.0, "boundbench run wrote no results file"))
    total = time.monotonic() - start
    failed = [r for r in job.rows if not r[1]]
    with open(out("job.md"), "w") as f:
        mode = f"timing model, config {args.timing}" if timing else "functional mode"
        f.write(f"# The GPU job under GPGPU-Sim ({mode})\n\n")
        f.write(f"`boundbench run {args.run_args}`; {total:.0f} s in all.\n\n")
        f.write("| step | result | s | |\n|---|---|---:|---|\n")
        for name, ok, seconds, what in job.rows:
            f.write(f"| {name} | {'ok' if ok else 'FAIL'} | {seconds:.0f} | {what} |\n")
        if timing and have_run:
            write_timing_summary(f, out("run.json"))
    print(f"gpusim job: {len(job.rows) - len(failed)} of {len(job.rows)} steps ok, "
          f"{total:.0f} s (OUT: {args.out})")
    for name, _, _, _ in failed:
        log = out(name + ".log")
        if os.path.exists(log):
            print(f"\n--- {name}: the end of {log}")
            with open(log, errors="replace") as f:
                sys.stdout.writelines(f.readlines()[-15:])
    return 1 if failed else 0


def nccl_steps(job, bb, sim, args):
    """The NCCL engines of collectives and strategies: each must say it cannot run."""
    job.step("collectives", [bb, "collectives", "--transport", "nccl", "--quick",
                             "--out", os.path.join(args.work, "collectives.json")],
             cwd=sim, timeout=300, expect_output=NCCL_CANNOT_RUN)
    job.step("strategies", [bb, "strategies", "--engine", "nccl", "--quick", "--no-fail",
                            "--compute", "synthetic", "--synthetic-rate", "1e10",
                            "--out", os.path.join(args.work, "strategies.json")],
             cwd=sim, timeout=300, expect_output=NCCL_CANNOT_RUN)


if __name__ == "__main__":
    sys.exit(main())
