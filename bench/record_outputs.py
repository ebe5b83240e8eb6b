"""Record the output files of many configurations, to prove a change leaves results unchanged.

Runs ``simcore run`` (jobs CSV, events CSV, summary JSON) for every sample workload x policy x
knob variant, ``simcore compare`` for a few variants, gang workloads (a ``paper-gang`` sample
under every policy with its decision records and Gantt segments; ``demo.csv`` with an all-1
``workers`` column, checked byte-identical to the runs without it), two ``simcore sweep`` grids
(rows, summary and paired CSVs) and ``simcore reproduce --quick`` (RESULTS.md, its rows and
figures), in-process through the CLI entry point, into one folder. Wall-clock times are the only values
that differ between two runs of the same code, so they are removed. Usage:

    python bench/record_outputs.py OUT_DIR          # record
    diff -r BEFORE_DIR AFTER_DIR                    # compare two recordings byte for byte
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from pathlib import Path

import pandas as pd

from simcore.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_workloads"

# workload file -> cluster options (integer resources only: results must not move)
WORKLOADS: dict[str, list[str]] = {
    "demo": ["--cluster", str(SAMPLES / "demo_cluster.yaml")],
    "demo_seed1": ["--nodes", "4", "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8"],
    "demo_seed2": ["--nodes", "3", "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8"],
    "paper_1000": ["--nodes", "16", "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8"],
    "mmc_small": ["--nodes", "8", "--node-cpu", "1", "--node-mem-gb", "1", "--node-gpu", "1"],
}
POLICIES = ("fifo", "priority", "k8s", "lrtp", "random", "fitgpp", "fitdelay")
VARIANTS: dict[str, list[str]] = {
    "default": [],
    "grace0": ["grace=0"],
    "grace300": ["grace=300"],
    "ckpt-none": ["checkpoint=none"],
    "ckpt-periodic": ["checkpoint=periodic", "checkpoint_interval=600"],
    "restore0": ["restore=0"],
    "restore600": ["restore=600"],
    "strict": ["backfill=none"],
    "first-fit": ["placement=first_fit"],
    "worst-fit": ["placement=worst_fit"],
    "P0": ["P=0"],
    "P1": ["P=1"],
    "P5": ["P=5"],
    "s1": ["s=1"],
    "s2": ["s=2"],
    "tau60": ["tau=60"],
    "seed3": ["seed=3"],
    "mr600": ["min_runtime=600"],
    "mr3600": ["min_runtime=3600"],
    "reentry600": ["reentry=600"],
}
COMPARE_VARIANTS = ("default", "ckpt-none", "strict")


def _sets(variant: str) -> list[str]:
    return [x for kv in VARIANTS[variant] for x in ("--set", kv)]


def _cli(argv: list[str], stdout_file: Path | None = None) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    if code != 0:
        raise SystemExit(f"simcore {' '.join(argv)} failed ({code}): {err.getvalue()}")
    if stdout_file is not None:  # the printed table, without the timing column's values
        stdout_file.write_text(out.getvalue())


def _strip_wall(path: Path) -> None:
    data = json.loads(path.read_text())

    def drop(x):
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if k != "wall_seconds"}
        if isinstance(x, list):
            return [drop(v) for v in x]
        return x

    path.write_text(json.dumps(drop(data), indent=2, sort_keys=True) + "\n")


SWEEPS: dict[str, list[str]] = {
    "demo-load-P": [
        "--preset",
        "demo",
        "--grid",
        "load=0.8,1.1",
        "--grid",
        "P=1,3",
        "--seeds",
        "2",
        "--policies",
        "fifo,priority,k8s,lrtp,random,fitgpp,fitgpp: s=2,fitdelay",
    ],
    "paper-ckpt": [
        "--preset",
        "paper",
        "--set",
        "jobs=300",
        "--grid",
        "checkpoint=none,periodic",
        "--grid",
        "min_runtime=0,600",
        "--seeds",
        "2",
        "--policies",
        "fifo,k8s,fitgpp,fitdelay",
        "--baseline",
        "fifo,k8s",
    ],
}


def _drop_wall_columns(path: Path) -> None:
    frame = pd.read_csv(path)
    frame = frame[[c for c in frame.columns if "wall" not in c]]
    frame.to_csv(path, index=False)


def _sweeps(out: Path) -> int:
    for name, args in SWEEPS.items():
        stem = out / f"sweep-{name}"
        _cli(
            [
                "sweep",
                *args,
                "--workers",
                "1",
                "--no-progress",
                "--out",
                f"{stem}.parquet",
                "--csv",
                f"{stem}.rows.csv",
                "--summary-csv",
                f"{stem}.summary.csv",
                "--paired-csv",
                f"{stem}.paired.csv",
            ]
        )
        Path(f"{stem}.parquet").unlink()  # the same rows as the CSV, plus wall-clock times
        for kind in ("rows", "summary", "paired"):
            _drop_wall_columns(Path(f"{stem}.{kind}.csv"))
    return len(SWEEPS)


def _reproduce_quick(out: Path) -> int:
    target = out / "reproduce-quick"
    _cli(["reproduce", "--quick", "--workers", "1", "--no-progress", "--out-dir", str(target)])
    for rows in sorted(target.rglob("*.parquet")):  # rows as CSV without wall-clock times
        frame = pd.read_parquet(rows)
        frame[[c for c in frame.columns if "wall" not in c]].to_csv(rows.with_suffix(".csv"), index=False)
        rows.unlink()
    doc = target / "RESULTS.md"  # the recording folder's name and the run's duration are not results
    text = re.sub(r"[^\s`(]*reproduce-quick", "OUT", doc.read_text())
    doc.write_text(re.sub(r"it took .*?\((?:main|all \d+ sweeps) [^)]*\)", "it took (time removed)", text))
    return 1


# Gang workloads: a paper-gang sample generated here (DESIGN section 7), every policy with a few
# knob variants; and demo.csv with an explicit all-1 workers column, whose outputs must equal
# demo.csv's byte for byte (DESIGN-gangs: a job with one worker follows exactly today's rules).
GANG_VARIANTS = ("default", "grace0", "ckpt-none", "strict", "first-fit", "P1", "mr600")


def _gangs(out: Path) -> int:
    gang = out / "paper-gang-300.csv"
    _cli(
        [
            "generate",
            "--preset",
            "paper-gang",
            "--seed",
            "0",
            "--set",
            "jobs=300",
            "--set",
            "nodes=8",
            "--out",
            str(gang),
        ]
    )
    cluster = ["--nodes", "8", "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8"]
    n = 0
    for policy in POLICIES:
        for variant in GANG_VARIANTS:
            stem = out / f"run-paper-gang-{policy}-{variant}"
            _cli(
                [
                    "run",
                    str(gang),
                    "--policy",
                    policy,
                    *cluster,
                    *_sets(variant),
                    "--jobs-out",
                    f"{stem}.jobs.csv",
                    "--events-out",
                    f"{stem}.events.csv",
                    "--summary-json",
                    f"{stem}.summary.json",
                    "--decisions-out",
                    f"{stem}.decisions.jsonl",
                    "--gantt-out",
                    f"{stem}.gantt.csv",
                ]
            )
            _strip_wall(Path(f"{stem}.summary.json"))
            n += 1
    ones = pd.read_csv(SAMPLES / "demo.csv").assign(workers=1)
    ones_file = out / "demo-workers-1.csv"
    ones.to_csv(ones_file, index=False)
    for policy in POLICIES:
        for name, src in (("without", SAMPLES / "demo.csv"), ("with", ones_file)):
            stem = out / f"ones-{policy}-{name}"
            _cli(
                [
                    "run",
                    str(src),
                    "--policy",
                    policy,
                    *WORKLOADS["demo"],
                    "--jobs-out",
                    f"{stem}.jobs.csv",
                    "--events-out",
                    f"{stem}.events.csv",
                    "--summary-json",
                    f"{stem}.summary.json",
                ]
            )
            _strip_wall(Path(f"{stem}.summary.json"))
        for kind in ("jobs.csv", "events.csv", "summary.json"):
            a, b = (out / f"ones-{policy}-{x}.{kind}" for x in ("without", "with"))
            if a.read_bytes() != b.read_bytes():
                raise SystemExit(f"an all-1 workers column changed {kind} of {policy}")
            b.unlink()
        n += 1
    ones_file.unlink()
    return n


def record(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for wl, cluster in WORKLOADS.items():
        src = str(SAMPLES / f"{wl}.csv")
        for policy in POLICIES:
            for variant in VARIANTS:
                stem = out / f"run-{wl}-{policy}-{variant}"
                argv = [
                    "run",
                    src,
                    "--policy",
                    policy,
                    *cluster,
                    *_sets(variant),
                    "--jobs-out",
                    f"{stem}.jobs.csv",
                    "--events-out",
                    f"{stem}.events.csv",
                    "--summary-json",
                    f"{stem}.summary.json",
                ]
                _cli(argv)
                _strip_wall(Path(f"{stem}.summary.json"))
                n += 1
        for variant in COMPARE_VARIANTS:
            stem = out / f"compare-{wl}-{variant}"
            argv = [
                "compare",
                src,
                "--policies",
                "fifo,priority,k8s,lrtp,random,fitgpp,fitgpp:P=1:s=4,fitdelay",
                *cluster,
                *_sets(variant),
                "--json",
                f"{stem}.json",
            ]
            _cli(argv)
            _strip_wall(Path(f"{stem}.json"))
            n += 1
    n += _gangs(out)
    n += _sweeps(out)
    n += _reproduce_quick(out)
    print(f"recorded {n} configurations in {out}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(record(Path(sys.argv[1])))
