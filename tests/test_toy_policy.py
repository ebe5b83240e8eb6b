"""Adding a policy is a one-place change: this file defines one, registers it, and the engine, the
CLI (``run --policy toy``, ``policies``) and decision records use it with nothing else changed.

The toy: on each feasible node take the running BE jobs youngest first (latest start of the
current run segment, then later in job order) until the TE job fits; choose the node needing
the fewest victims, then the first node. The evaluator does the node loop, the node choice,
the signal order and the records.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import pytest
from helpers import events_of, job, prop_cluster, te

from simcore.cli import main as cli_main
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.policies import POLICIES, PreemptionView, PreemptivePolicy, VictimSet, register, unregister


@dataclass(frozen=True)
class Youngest(PreemptivePolicy):
    name: ClassVar[str] = "toy"
    help: ClassVar[str] = "Preempts the youngest BE jobs, on the node needing the fewest."
    key: ClassVar[tuple[tuple[str, str], ...]] = (("victims", "min"),)

    def on_node(self, view: PreemptionView, k: int, here: list[int]) -> Iterable[VictimSet]:
        c = view.candidates
        total = view.avail[k].copy()
        taken: list[int] = []
        for p in sorted(here, key=lambda p: (-c.seg_start[p], -c.rank[p])):
            if view.fits(total):
                break
            taken.append(p)
            total = total + c.req[p]
        return (VictimSet(taken, (len(taken),)),)


@pytest.fixture()
def toy():
    register(Youngest())
    yield POLICIES["toy"]
    unregister("toy")
    assert "toy" not in POLICIES


# Two nodes of 2 GPUs. A and B (1 GPU each) fill n0 at 0 (best fit puts B next to A); C (2) fills n1 at 5.
# T (TE, 1 GPU) comes at 10. The toy: n0's youngest is B (A and B both started at 0, B later in job
# order), n1's is C; one victim each, so the first node: B on n0. (k8s would take C: the latest start.)
# grace = restore = 0: B is released at once and T starts in its place; B (90 s left) restarts when T
# ends at 30 and finishes at 120; A at 100, C at 105.
JOBS = [job("A", 0, 100, 1), job("B", 0, 100, 1), job("C", 5, 100, 2), te("T", 10, 20, 1)]
EVENTS = [
    (0.0, "A", "submit", ""),
    (0.0, "B", "submit", ""),
    (0.0, "A", "start", "n0"),
    (0.0, "B", "start", "n0"),
    (5.0, "C", "submit", ""),
    (5.0, "C", "start", "n1"),
    (10.0, "T", "submit", ""),
    (10.0, "B", "preempt", "n0"),
    (10.0, "B", "release", "n0"),
    (10.0, "T", "start", "n0"),
    (30.0, "T", "finish", "n0"),
    (30.0, "B", "start", "n0"),
    (100.0, "A", "finish", "n0"),
    (105.0, "C", "finish", "n1"),
    (120.0, "B", "finish", "n0"),
]


def test_the_engine_runs_a_registered_policy(toy):
    config = SimConfig(policy="toy", grace=0, restore=0)
    r = simulate(JobTable.from_jobs(JOBS), prop_cluster(2, 2), config, record_decisions=True)
    assert events_of(r) == EVENTS
    # decision records come from the evaluator: each node's set with the toy's named key, best first
    assert r.decisions == (
        {
            "time": 10.0,
            "te_job": "T",
            "policy": "toy",
            "node": "n0",
            "victims": ["B"],
            "key": [["victims", "min"]],
            "candidates": [
                {"node": "n0", "job_id": ["B"], "victims": 1, "chosen": True},
                {"node": "n1", "job_id": ["C"], "victims": 1, "chosen": False},
            ],
            "deciding": "tie_break",  # one victim on either node: the node index decides
            "reason": None,
        },
    )
    k8s = simulate(JobTable.from_jobs(JOBS), prop_cluster(2, 2), SimConfig(policy="k8s", grace=0, restore=0))
    assert [e for e in events_of(k8s) if e[2] == "preempt"] == [(10.0, "C", "preempt", "n1")]


def test_the_cli_runs_a_registered_policy(toy, tmp_path, capsys):
    wl = tmp_path / "w.csv"
    wl.write_text(
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"
        + "".join(
            f"{j.job_id},{j.submit_time},{j.duration},{j.request.cpu},{j.request.mem_gb},{j.request.gpu},"
            f"{j.job_class.value}\n"
            for j in JOBS
        )
    )
    events = tmp_path / "e.csv"
    argv = [
        "run",
        str(wl),
        "--policy",
        "toy",
        "--nodes",
        "2",
        "--node-cpu",
        "2",
        "--node-mem-gb",
        "2",
        "--node-gpu",
        "2",
        "--set",
        "grace=0",
        "--set",
        "restore=0",
        "--events-out",
        str(events),
    ]
    assert cli_main(argv) == 0
    with events.open(newline="") as f:
        rows = [(float(r["time"]), r["job_id"], r["event"], r["node"]) for r in csv.DictReader(f)]
    assert rows == EVENTS
    capsys.readouterr()
    assert cli_main(["policies"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert list(listed) == [*POLICIES] and list(listed)[-1] == "toy"
    assert listed["toy"].endswith(f"{Youngest.help} [knobs: min_runtime=0, preempt_budget=inf]")
    summary = tmp_path / "s.json"
    assert cli_main([*argv[:-2], "--policy", "toy:min_runtime=600", "--summary-json", str(summary)]) == 0
    out = json.loads(summary.read_text())  # min_runtime (every preemptive policy's knob) keeps B and C from T
    assert (out["policy"], out["knobs"]["min_runtime"], out["preemptions"]) == ("toy", 600, 0)


def test_a_name_is_registered_once(toy):
    with pytest.raises(ValueError, match="already registered"):
        register(Youngest())
