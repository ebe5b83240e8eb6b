"""Record the output files of many runs with queues, to prove a change to the queue path leaves them unchanged.

The companion of ``bench/record_outputs.py`` (which records runs without queues): the ``teams`` preset
over several seeds under every policy, with its queues and with variants of them (borrow limits 0,
some and inf; other weights; quotas overcommitted; a queue of quota 0), with knob variants (grace 0,
strict backfill, ``min_runtime``, ``P``, no checkpoint, a preemption budget, saves that fail), gangs
with queues, node events with queues, the ``lesson`` scenario, ``compare`` and ``explain --all-waits``
with queues, and a 10,000-job ``teams`` run per policy. Each run writes its jobs, events, summary,
decision records and ledger (``simcore run``, in-process through the CLI entry point). Usage:

    python bench/record_queues.py OUT_DIR          # record
    diff -r BEFORE_DIR AFTER_DIR                   # compare two recordings byte for byte
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
from record_outputs import (  # bench/record_outputs.py (a script's own folder is on sys.path)
    POLICIES,
    SAMPLES,
    _cli,
    _strip_wall,
)

CLUSTER = ["--nodes", "16", "--node-cpu", "64", "--node-mem-gb", "512", "--node-gpu", "8"]
# queues files: name -> rows (vision, nlp, research: the preset's teams)
QUEUES: dict[str, str] = {
    "preset": "vision,56,72,1\nnlp,40,24,1\nresearch,32,96,2\n",
    "borrow0": "vision,56,0,1\nnlp,40,0,1\nresearch,32,0,1\n",
    "borrow-some": "vision,48,8,1\nnlp,40,16,1\nresearch,24,4,3\n",
    "borrow-inf": "vision,56,inf,1\nnlp,40,,1\nresearch,32,inf,2\n",
    "weights": "vision,40,inf,5\nnlp,40,inf,1\nresearch,40,inf,0.5\n",
    "overcommit": "vision,80,40,1\nnlp,60,20,2\nresearch,40,inf,1\n",
    "quota0": "vision,0,inf,1\nnlp,64,inf,1\nresearch,64,8,1\n",
    "inf": "vision,inf,inf,1\nnlp,inf,inf,1\nresearch,inf,inf,1\n",
}
KNOBS: dict[str, list[str]] = {
    "grace0": ["grace=0"],
    "strict": ["backfill=none"],
    "mr1800": ["min_runtime=1800"],
    "P1": ["P=1"],
    "ckpt-none": ["checkpoint=none"],
    "budget": ["preempt_budget=3"],
    "saves": ["save_time=20", "save_failure=0.3"],
    "first-fit": ["placement=first_fit"],
}
SEEDS = (0, 1, 2)


def _sets(kvs: list[str]) -> list[str]:
    return [x for kv in kvs for x in ("--set", kv)]


def _run(out: Path, name: str, workload: Path, policy: str, queues: Path, extra: list[str], *, decisions: bool = True):
    stem = out / name
    files = ["--jobs-out", f"{stem}.jobs.csv", "--events-out", f"{stem}.events.csv"]
    files += ["--summary-json", f"{stem}.summary.json", "--ledger-out", f"{stem}.ledger.csv"]
    if decisions:
        files += ["--decisions-out", f"{stem}.decisions.jsonl"]
    _cli(["run", str(workload), "--policy", policy, *CLUSTER, "--queues", str(queues), *extra, *files])
    _strip_wall(Path(f"{stem}.summary.json"))


def _queues_file(out: Path, name: str) -> Path:
    path = out / f"queues-{name}.csv"
    path.write_text("queue,gpu,borrow_limit,weight\n" + QUEUES[name])
    return path


def _teams(out: Path, seed: int, jobs: int) -> Path:
    path = out / f"teams-{seed}-{jobs}.csv"
    _cli(["generate", "--preset", "teams", "--seed", str(seed), "--set", f"jobs={jobs}", "--out", str(path)])
    return path


def record(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    qfiles = {name: _queues_file(out, name) for name in QUEUES}
    n = 0
    for seed in SEEDS:
        wl = _teams(out, seed, 800)
        for policy in POLICIES:
            for qname, qfile in qfiles.items():
                _run(out, f"teams{seed}-{policy}-{qname}", wl, policy, qfile, [])
                n += 1
    wl = _teams(out, 0, 800)
    for policy in POLICIES:
        for kname, kvs in KNOBS.items():
            for qname in ("preset", "borrow-some"):
                _run(out, f"teams0-{policy}-{qname}-{kname}", wl, policy, qfiles[qname], _sets(kvs))
                n += 1
    n += _gangs(out, qfiles)
    n += _node_events(out, wl, qfiles)
    for policy in POLICIES:
        lesson = SAMPLES / "lessons"
        stem = out / f"lesson-{policy}"
        _cli(
            [
                "run",
                str(lesson / "quota_reclaim.csv"),
                "--policy",
                policy,
                "--cluster",
                str(lesson / "one_node.yaml"),
                "--queues",
                str(lesson / "quota_reclaim.queues.csv"),
                "--jobs-out",
                f"{stem}.jobs.csv",
                "--events-out",
                f"{stem}.events.csv",
                "--decisions-out",
                f"{stem}.decisions.jsonl",
                "--ledger-out",
                f"{stem}.ledger.csv",
            ]
        )
        n += 1
    small = _teams(out, 1, 300)
    for qname in ("preset", "borrow0"):
        stem = out / f"compare-teams1-{qname}"
        _cli(
            ["compare", str(small), "--policies", ",".join(POLICIES), *CLUSTER, "--queues", str(qfiles[qname])],
            Path(f"{stem}.txt"),
        )
        _drop_wall_column(Path(f"{stem}.txt"))
        _cli(
            [
                "compare",
                str(small),
                "--policies",
                ",".join(POLICIES),
                *CLUSTER,
                "--queues",
                str(qfiles[qname]),
                "--json",
                f"{stem}.json",
            ]
        )
        _strip_wall(Path(f"{stem}.json"))
        n += 1
    for policy in ("k8s", "fitgpp"):
        _cli(
            ["explain", str(small), "--policy", policy, *CLUSTER, "--queues", str(qfiles["preset"]), "--all-waits"],
            out / f"explain-teams1-{policy}.txt",
        )
        n += 1
    big = _teams(out, 0, 10_000)
    for policy in POLICIES:
        _run(out, f"teams10k-{policy}", big, policy, qfiles["preset"], [], decisions=False)
        n += 1
    big.unlink()
    print(f"recorded {n} configurations with queues in {out}")
    return 0


def _drop_wall_column(path: Path) -> None:
    """The printed policy table without its last column (wall-clock seconds)."""
    lines = path.read_text().splitlines()
    head = next(i for i, line in enumerate(lines) if line.rstrip().endswith("wall s"))
    end = lines.index("", head)
    lines[head:end] = [line.rstrip().rsplit(" ", 1)[0].rstrip() for line in lines[head:end]]
    path.write_text("\n".join(lines) + "\n")


def _gangs(out: Path, qfiles: dict[str, Path]) -> int:
    """paper-gang jobs spread over the three queues, round robin by row."""
    gang = out / "paper-gang-queues.csv"
    _cli(["generate", "--preset", "paper-gang", "--seed", "0", "--set", "jobs=400", "--out", str(gang)])
    frame = pd.read_csv(gang)
    frame["queue"] = [("vision", "nlp", "research")[i % 3] for i in range(len(frame))]
    frame.to_csv(gang, index=False)
    n = 0
    for policy in POLICIES:
        for qname in ("preset", "borrow-some", "borrow0"):
            for kname, kvs in (("default", []), ("grace0", ["grace=0"]), ("mr600", ["min_runtime=600"])):
                _run(out, f"gang-{policy}-{qname}-{kname}", gang, policy, qfiles[qname], _sets(kvs))
                n += 1
    return n


def _node_events(out: Path, wl: Path, qfiles: dict[str, Path]) -> int:
    events = out / "node-events.csv"
    rows = ["node,start,end,kind"]
    for i in range(6):
        rows.append(f"n{(5 * i) % 16},{20000 + 40000 * i},{26000 + 40000 * i},{'failure' if i % 2 else 'maintenance'}")
    events.write_text("\n".join(rows) + "\n")
    n = 0
    for policy in POLICIES:
        for qname in ("preset", "borrow-some"):
            for kname, kvs in (("default", []), ("mtbf", ["mtbf=200000", "repair=3000"])):
                extra = ["--node-events", str(events), *_sets(kvs)]
                _run(out, f"events-{policy}-{qname}-{kname}", wl, policy, qfiles[qname], extra)
                n += 1
    return n


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(record(Path(sys.argv[1])))
