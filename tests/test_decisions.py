"""Decision records (DESIGN.md section 6): one per ask for victims, tied to the preempt events.

Property tests (every preemptive policy, the workloads of helpers.strategies) check that the
records and the preempt events agree exactly, that recording changes nothing, and that the
chosen option is the best of the recorded ones by the policy's named key. Hand-made
scenarios check every value of the records against numbers derived by hand, each reason
for no victims, and the CLI's JSON lines.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers import clusters, configs, events_of, job, prop_cluster, te, workloads
from helpers.decisions import first, record_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.cli import main as cli_main
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.policies import POLICIES
from simcore.policies.decision import (
    CAPPED_BY_P,
    LARGER_THAN_S,
    NO_NODE_FEASIBLE,
    NO_RUNNING_BE,
    REASONS,
    WITHIN_MIN_RUNTIME,
)
from simcore.policies.glossary import TIE_BREAK

PREEMPTIVE = [name for name, p in POLICIES.items() if p.preemptive]
RANKED = [p for p in PREEMPTIVE if p != "random"]  # options ordered by a key, best first


def directed(row: dict, key: list) -> tuple:
    """A row's named key as a tuple where smaller is better."""
    return tuple(row[name] if better == "min" else -row[name] for name, better in key)


def brief(records: list[dict]) -> list[tuple]:
    return [(d["time"], d["te_job"], d["node"], d["victims"], d["reason"]) for d in records]


# --------------------------------------------------------------------------- properties


def check_records(jobs: JobTable, config: SimConfig, r, plain) -> None:
    assert events_of(r) == events_of(plain), "recording decisions changed the run"
    assert plain.decisions == ()
    events = events_of(r)
    # every preempt event belongs to exactly one record: same time, victim, node, in signal order
    signalled = [(d["time"], v, d["node"]) for d in r.decisions for v in d["victims"]]
    assert signalled == [(t, j, n) for t, j, e, n in events if e == "preempt"]
    is_te = dict(zip(jobs.job_id.tolist(), jobs.is_te.tolist(), strict=True))
    submit = dict(zip(jobs.job_id.tolist(), jobs.submit_time.tolist(), strict=True))
    last_start: dict[str, float] = {}
    starts = [(t, j) for t, j, e, _ in events if e == "start"]
    s = 0
    for d in r.decisions:
        json.dumps(d, allow_nan=False)  # JSON-ready, finite
        assert d["policy"] == config.policy
        assert is_te[d["te_job"]] and d["time"] >= submit[d["te_job"]]
        chosen = [row for row in d["candidates"] if row["chosen"]]
        if d["victims"]:
            assert d["reason"] is None
            assert chosen == [d["candidates"][0]]
            assert chosen[0]["node"] == d["node"] and chosen[0]["job_id"] == d["victims"]
            assert all(not is_te[v] for v in d["victims"])
        else:
            assert d["reason"] in REASONS and d["node"] is None and not chosen
            if d["reason"] != NO_NODE_FEASIBLE:
                assert d["candidates"] == []
        while s < len(starts) and starts[s][0] <= d["time"]:
            last_start[starts[s][1]] = starts[s][0]
            s += 1
        for v in d["victims"]:  # a victim's current segment has lasted min_runtime (the sum the rule states)
            assert last_start[v] + config.min_runtime <= d["time"]
        names = [name for name, _ in d["key"]]
        for row in d["candidates"]:
            assert set(row) == {"node", "job_id", "chosen", *names}
        if not d["victims"] or len(d["candidates"]) < 2:
            assert d["deciding"] is None
        elif config.policy in RANKED:  # the first named value where the chosen row beats the runner-up
            best, other = (directed(row, d["key"]) for row in d["candidates"][:2])
            at = next((i for i, (a, b) in enumerate(zip(best, other, strict=True)) if a != b), None)
            assert d["deciding"] == (TIE_BREAK if at is None else names[at])
            assert at is None or best[at] < other[at]
        if config.policy in RANKED:
            keys = [directed(row, d["key"]) for row in d["candidates"]]
            assert keys == sorted(keys), "options not best first by the named key"
            assert all(row["victims"] == len(row["job_id"]) for row in d["candidates"])
        elif d["candidates"]:  # random: each feasible node once, the drawn one first
            draws = [row["draw"] for row in d["candidates"]]
            assert sorted(draws) == list(range(len(draws)))
            assert [row["node"] for row in d["candidates"][1:]] == sorted(
                (row["node"] for row in d["candidates"][1:]), key=lambda n: int(n[1:])
            )


@pytest.mark.parametrize("policy", PREEMPTIVE)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_records_match_the_preempt_events(policy, data):
    cluster = data.draw(clusters())
    jobs = data.draw(workloads(cluster))
    config = replace(data.draw(configs(policy)), min_runtime=data.draw(st.sampled_from([0.0, 5.0, 20.0])))
    r = simulate(jobs, cluster, config, record_decisions=True)
    check_records(jobs, config, r, simulate(jobs, cluster, config))


# --------------------------------------------------------------------------- by hand
#
# Two nodes of 4 GPUs (cpu = mem = gpu, so every dimension has the same share). BE jobs, best


def test_fitgpp_one_victim_sets_by_hand():
    # 1-sets that fit: 1 on n0 (room 3 - 2: slack 3 x 1/4), 3 and 4 on n1 (slack 0). 3 and 4 tie on
    # slack; lost work 10 vs 8 picks 4. Each node shows its best set; 2 alone (1 GPU) does not fit.
    d = first("fitgpp")
    assert d["node"] == "n1" and d["victims"] == ["4"] and d["reason"] is None
    assert d["key"] == [
        ["victims", "min"],
        ["slack", "min"],
        ["lost_work", "min"],
        ["past_preemptions", "min"],
        ["earliest_start", "max"],
    ]
    assert d["candidates"] == [
        {
            "node": "n1",
            "job_id": ["4"],
            "victims": 1,
            "slack": 0.0,
            "lost_work": 8.0,
            "past_preemptions": 0,
            "earliest_start": 2.0,
            "chosen": True,
        },
        {
            "node": "n0",
            "job_id": ["1"],
            "victims": 1,
            "slack": 0.75,
            "lost_work": 10.0,
            "past_preemptions": 0,
            "earliest_start": 0.0,
            "chosen": False,
        },
    ]


def test_fitgpp_two_victim_sets_by_hand():
    # a TE job of 4 GPUs needs a whole node: {1, 2} on n0 (lost 20) or {3, 4} on n1 (lost 10 + 8)
    d = first("fitgpp", t_gpu=4)
    assert d["node"] == "n1" and d["victims"] == ["3", "4"]
    assert [
        (row["node"], row["job_id"], row["victims"], row["slack"], row["lost_work"], row["earliest_start"])
        for row in d["candidates"]
    ] == [("n1", ["3", "4"], 2, 0.0, 18.0, 0.0), ("n0", ["1", "2"], 2, 0.0, 20.0, 0.0)]


def test_fitgpp_chosen_is_the_least_key_on_a_busy_run():
    r = simulate(
        *_busy(), SimConfig(policy="fitgpp", checkpoint="periodic", checkpoint_interval=600), record_decisions=True
    )
    decided = [d for d in r.decisions if d["victims"]]
    assert len(decided) > 50
    multi = 0
    for d in decided:
        keys = [directed(row, d["key"]) for row in d["candidates"]]
        assert keys[0] == min(keys)
        multi += len(keys) > 1
    assert multi > 10  # real choices among several nodes were checked


def _busy():
    from simcore.workload.presets import generate

    wl = generate("paper", 0, {"jobs": 1500})
    return wl.table, wl.cluster


def test_k8s_by_hand():
    # n0: reprieve 1 then 2 (both started at 0): without 1 only 1 GPU is free, so 1 stays a victim.
    # n1: reprieve 3 (started 0) first: 2 GPUs are still free, so 4 (started 2) is the victim.
    # Fewest victims tie; the latest earliest-victim-start (2 > 0) picks n1.
    d = first("k8s")
    assert d["node"] == "n1" and d["victims"] == ["4"]
    assert d["key"] == [["victims", "min"], ["earliest_victim_start", "max"]]
    assert [
        (row["node"], row["job_id"], row["victims"], row["earliest_victim_start"], row["chosen"])
        for row in d["candidates"]
    ] == [("n1", ["4"], 1, 2.0, True), ("n0", ["1"], 1, 0.0, False)]


def test_lrtp_by_hand():
    # remaining at t=10: 1: 90, 2: 40, 3: 70, 4: 30 - 8 = 22. n0 takes 1 (90), n1 takes 3 (70);
    # the largest minimum remaining picks n0.
    d = first("lrtp")
    assert d["node"] == "n0" and d["victims"] == ["1"]
    assert [(row["node"], row["job_id"], row["victims"], row["min_remaining"]) for row in d["candidates"]] == [
        ("n0", ["1"], 1, 90.0),
        ("n1", ["3"], 1, 70.0),
    ]


def test_fitdelay_by_hand():
    # delay = lost now + restore (60) + grace (10) (without checkpoints the room is not priced): 4 on n1:
    # 8 + 70 = 78; 1 on n0: 10 + 70 = 80. (With the default 30 s grace fitdelay would wait instead: 4 ends
    # 22 s from now, see test_fitdelay.py.)
    d = first("fitdelay", grace=10)
    assert d["node"] == "n1" and d["victims"] == ["4"]
    assert [(row["node"], row["job_id"], row["delay"], row["slack"]) for row in d["candidates"]] == [
        ("n1", ["4"], 78.0, 0.0),
        ("n0", ["1"], 80.0, 0.75),
    ]


@pytest.mark.parametrize("seed", range(6))
def test_random_records_its_draw(seed):
    # both nodes are feasible: the run's generator (seed) draws the node, then shuffles its two
    # candidates (in job order) and takes them until 2 GPUs are free
    rng = np.random.default_rng(seed)
    draw = int(rng.integers(2))
    node = ("n0", "n1")[draw]
    on_node = {"n0": ["1", "2"], "n1": ["3", "4"]}[node]
    size = {"1": 3, "2": 1, "3": 2, "4": 2}
    taken, free = [], 0
    for i in rng.permutation(2):
        if free >= 2:
            break
        taken.append(on_node[i])
        free += size[on_node[i]]
    d = first("random", seed=seed)
    assert d["node"] == node and d["victims"] == sorted(taken)
    assert d["candidates"] == [
        {"node": node, "job_id": sorted(taken), "draw": draw, "chosen": True},
        {"node": ("n0", "n1")[1 - draw], "job_id": [], "draw": 1 - draw, "chosen": False},
    ]


# --------------------------------------------------------------------------- reasons


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_no_running_be_job(policy):
    # T2 finds the node held by a TE job: asked once at 5, placed when T1 finishes at 100
    r = record_run([te("T1", 0, 100, 2), te("T2", 5, 10, 1), job("B", 50, 10, 2)], prop_cluster(2), policy=policy)
    # B (queued behind, BE) never runs before 100, so the answer stays the same at 50
    assert brief(r.decisions) == [(5.0, "T2", None, [], NO_RUNNING_BE), (50.0, "T2", None, [], NO_RUNNING_BE)]
    assert all(d["candidates"] == [] for d in r.decisions)


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_within_min_runtime_then_victims(policy):
    r = record_run([job("B", 0, 100, 2), te("T", 5, 10, 2)], prop_cluster(2), policy=policy, min_runtime=20)
    assert brief(r.decisions) == [(5.0, "T", None, [], WITHIN_MIN_RUNTIME), (20.0, "T", "n0", ["B"], None)]


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_no_node_feasible(policy):
    # removing B frees 1 GPU; T2 needs 2 and T1 holds the other
    r = record_run([te("T1", 0, 100, 1), job("B", 0, 100, 1), te("T2", 5, 10, 2)], prop_cluster(2), policy=policy)
    assert brief(r.decisions) == [(5.0, "T2", None, [], NO_NODE_FEASIBLE)]
    assert r.decisions[0]["candidates"] == []


@pytest.mark.parametrize(
    ("policy", "knobs", "expected"),
    [
        ("fitgpp", {"P": 0}, CAPPED_BY_P),
        ("fitgpp", {"s": 1.0}, LARGER_THAN_S),  # B's share 1.0 > 1 x the TE job's 0.5
        ("fitgpp", {"P": 0, "s": 1.0}, CAPPED_BY_P),  # the P cap is told first
        ("fitdelay", {"P": 0}, CAPPED_BY_P),  # with on_preempt fitdelay is fitgpp, P cap included
        ("fitdelay", {"P": 0, "checkpoint": "periodic"}, None),  # where a preemption loses work: no P cap
        ("fitdelay", {"s": 1.0}, LARGER_THAN_S),
        ("fitgpp", {"s": 2.0}, None),  # 1.0 <= 2 x 0.5
    ],
)
def test_caps(policy, knobs, expected):
    r = record_run([job("B", 0, 100, 2), te("T", 5, 10, 1)], prop_cluster(2), policy=policy, **knobs)
    d = r.decisions[0]
    assert (d["time"], d["reason"]) == (5.0, expected)
    assert d["victims"] == ([] if expected else ["B"])


def test_a_preempted_job_under_the_p_cap():
    # fitgpp P=1: B is preempted once by T1; when T2 comes, B (restarted) is capped until it ends
    jobs = [job("B", 0, 1000, 2), te("T1", 5, 10, 2), te("T2", 200, 10, 2)]
    r = record_run(jobs, prop_cluster(2), policy="fitgpp", P=1)
    assert brief(r.decisions) == [(5.0, "T1", "n0", ["B"], None), (200.0, "T2", None, [], CAPPED_BY_P)]


def test_off_by_default():
    r = simulate(JobTable.from_jobs([job("B", 0, 100, 2), te("T", 5, 10, 2)]), prop_cluster(2), SimConfig(policy="k8s"))
    assert r.decisions == () and r.preemptions.sum() == 1


# --------------------------------------------------------------------------- CLI


def test_cli_writes_json_lines(tmp_path):
    # two BE jobs fill n0 at 0 (text ids, compared as text: "=" < "b"); TE 7 takes n1 at 5; TE é needs a
    # whole node at 6: n1 holds only a TE job, so k8s takes both BE jobs on n0, in job order
    ids = ['=cmd|"x"', "b\\n", "7", "é"]  # text a JSON writer must escape, and a number-like id
    rows = [(ids[0], 0, 100, 2, "BE"), (ids[1], 0, 100, 2, "BE"), (ids[2], 5, 10, 2, "TE"), (ids[3], 6, 10, 4, "TE")]
    wl = tmp_path / "w.csv"
    wl.write_text(
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n"
        + "".join(f'"{i.replace(chr(34), chr(34) * 2)}",{s},{d},{g},{g},{g},{c}\n' for i, s, d, g, c in rows),
        encoding="utf-8",
    )
    out = tmp_path / "d.jsonl"
    argv = [
        "run",
        str(wl),
        "--policy",
        "k8s",
        "--nodes",
        "2",
        "--node-cpu",
        "4",
        "--node-mem-gb",
        "4",
        "--node-gpu",
        "4",
        "--decisions-out",
        str(out),
    ]
    assert cli_main(argv) == 0
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n") and text.isascii()
    assert [json.loads(line) for line in text.splitlines()] == [
        {
            "time": 6.0,
            "te_job": "é",
            "policy": "k8s",
            "node": "n0",
            "victims": ids[:2],
            "key": [["victims", "min"], ["earliest_victim_start", "max"]],
            "candidates": [
                {"node": "n0", "job_id": ids[:2], "victims": 2, "earliest_victim_start": 0.0, "chosen": True}
            ],
            "deciding": None,  # one node weighed
            "reason": None,
            # its accounting: é lacked all 4 GPUs and the victims free 4 (excess 0); TE 7 ends at 15 and é
            # starts on n1 then, before the victims release n0 at 36 (wasted); they held 2 x 2 GPUs for
            # 30 s of grace (120 GPU-s) and restore 60 s each when they restart at 36 (240 GPU-s)
            "excess_gpus": 0.0,
            "gpu_seconds_lost": 0.0,
            "gpu_seconds_grace": 120.0,
            "gpu_seconds_restore": 240.0,
            "wasted": True,
        }
    ]


def test_cli_without_the_option_writes_no_records(tmp_path):
    wl = tmp_path / "w.csv"
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,100,1,1,1,BE\n2,5,10,1,1,1,TE\n")
    argv = [
        "run",
        str(wl),
        "--policy",
        "k8s",
        "--nodes",
        "1",
        "--node-cpu",
        "1",
        "--node-mem-gb",
        "1",
        "--node-gpu",
        "1",
        "--events-out",
        str(tmp_path / "e.csv"),
    ]
    assert cli_main(argv) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.csv", "w.csv"]


def test_the_docs_document_every_key_and_reason():
    doc = Path(__file__).resolve().parents[1] / "docs" / "policies.md"
    text = doc.read_text(encoding="utf-8")
    section = text[text.index("\n## Decision records\n") : text.index("\n### Reading a decision")]
    for name in PREEMPTIVE:
        start = section.index(f"\n  - `{name}`:")
        end = min(
            i for i in (section.find("\n  - ", start + 1), section.find("\n- ", start + 1), len(section)) if i >= 0
        )
        entry = section[start:end]
        for key, _ in POLICIES[name].key:
            assert f"`{key}`" in entry, f"docs/policies.md: {name}'s key value {key} is not documented"
    for why in REASONS:
        assert f"`{why}`" in section
