#!/usr/bin/env python3
"""Rehearses the GPU workflow (.github/workflows/gpu.yml) here, without a GPU.

Runs the workflow's steps in order, as the runner would (bash -e, the workflow's and the step's env,
`if: always()`, each step's timeout-minutes), from this working tree, with four differences:
  - the bundle is packed from an existing CUDA build tree (BUNDLE_FROM_BUILD=BUILD_DIR: no second
    build), into WORK_DIR/bundle; the results go to WORK_DIR/gpu-results;
  - ci/gpu_run.sh runs as a dry run (BB_GPU_RUN_DRY=1): its preflight's verdict (here: no driver) is
    logged, not obeyed, and a step that needs a GPU is listed as "cannot run without a GPU";
  - no GPU is visible (CUDA_VISIBLE_DEVICES=""), also on a machine that has one;
  - `uses:` steps (actions) are not run: checkout is this working tree, upload-artifact lists
    what it would upload.
Writes WORK_DIR/dryrun.json (each step: name, command, exit status, seconds, or why not run) and
prints a table. Exit 0 when every step the runner would run here ran and passed (gpu_run.sh in a dry
run passes when only the steps that need a GPU could not run), 1 otherwise.

  ci/gpu_dryrun.py BUILD_DIR WORK_DIR        (e.g. build/ci /tmp/dryrun; WORK_DIR is emptied)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(ROOT, ".github", "workflows", "gpu.yml")


def expand(text, env):
    """The workflow expressions the steps use: ${{ env.NAME }} and ${{ github.sha }}."""
    def one(m):
        expr = m.group(1).strip()
        if expr.startswith("env."):
            return env.get(expr[4:], "")
        if expr == "github.sha":
            return env["GITHUB_SHA"]
        raise SystemExit(f"gpu_dryrun: expression not rehearsed: ${{{{ {expr} }}}}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    build, work = (os.path.abspath(a) for a in sys.argv[1:])
    for exe in ("boundbench", "tests/gpu_test"):
        if not os.access(os.path.join(build, exe), os.X_OK):
            sys.exit(f"gpu_dryrun: {build}/{exe} not built (a CUDA build: cmake --preset ci)")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(WORKFLOW) as f:
        workflow = yaml.safe_load(f)
    (job_name, job), = workflow["jobs"].items()
    sha = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or "unknown"
    base = dict(os.environ)
    base.update({k: str(v) for k, v in (workflow.get("env") or {}).items()})
    base.update({k: str(v) for k, v in (job.get("env") or {}).items()})
    overrides = {"BUNDLE_DIR": os.path.join(work, "bundle"),
                 "RESULTS_DIR": os.path.join(work, "gpu-results"),
                 "HISTORY_DIR": os.path.join(work, "history"),
                 "BUNDLE_FROM_BUILD": build, "BB_GPU_RUN_DRY": "1", "CUDA_VISIBLE_DEVICES": "",
                 "GITHUB_STEP_SUMMARY": os.path.join(work, "summary.md"), "GITHUB_SHA": sha,
                 "GITHUB_WORKSPACE": ROOT}
    base.update(overrides)
    log = open(os.path.join(work, "dryrun.log"), "w")
    steps, ok = [], True
    for i, s in enumerate(job["steps"]):
        name = s.get("name") or s.get("uses") or f"step {i + 1}"
        record = {"name": name, "if": s.get("if", "success()")}
        env = dict(base)
        env.update({k: expand(v, base) for k, v in (s.get("env") or {}).items()})
        env.update(overrides)
        if not ok and "always()" not in record["if"]:
            record["not_run"] = "an earlier step failed (if: success())"
        elif "uses" in s:
            action = record["uses"] = s["uses"]
            if action.startswith("actions/checkout"):
                record["not_run"] = f"{action}: the working tree here stands for the checkout"
            elif action.startswith("actions/upload-artifact"):
                path = expand(s["with"]["path"], env).rstrip("/")
                files = sorted(os.listdir(path)) if os.path.isdir(path) else []
                listed = " ".join(files) or "nothing"
                record["not_run"] = f"{action}: would upload {path}/: {listed}"
                record["files"] = files
            else:
                record["not_run"] = f"{action}: an action, not rehearsed"
        else:
            command = expand(s["run"], env)
            record["command"] = command
            limit_s = 60 * float(s.get("timeout-minutes", job.get("timeout-minutes", 360)))
            print(f"gpu_dryrun: === {name}: {command.strip()}", file=log, flush=True)
            t0 = time.monotonic()
            try:
                rc = subprocess.run(["bash", "-e", "-c", command], cwd=ROOT, env=env, stdout=log,
                                    stderr=subprocess.STDOUT, timeout=limit_s).returncode
            except subprocess.TimeoutExpired:
                rc = 124
            record.update(exit=rc, seconds=round(time.monotonic() - t0, 1))
            ok = ok and rc == 0
        steps.append(record)
    log.close()
    with open(os.path.join(work, "dryrun.json"), "w") as f:
        json.dump({"workflow": os.path.relpath(WORKFLOW, ROOT), "job": job_name, "work": work,
                   "ok": ok, "steps": steps}, f, indent=1)
    for r in steps:
        what = (f"exit {r['exit']} in {r['seconds']} s" if "exit" in r
                else f"not run: {r['not_run']}")
        print(f"gpu_dryrun: {r['name']}: {what}")
    results = overrides["RESULTS_DIR"]
    if os.path.isfile(os.path.join(results, "gpu_run.log")):
        with open(os.path.join(results, "gpu_run.log")) as f:
            last = f.read().rstrip().splitlines()[-1]
        print(f"gpu_dryrun: {last}")
    print(f"gpu_dryrun: {'every step ran' if ok else 'a step FAILED'}; log {work}/dryrun.log")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
