"""Gantt segments (simcore.analysis.gantt): the lane geometry on hand-made cases and, with hypothesis,
on random small workloads under every policy; the ``--gantt-out`` CSV."""

from __future__ import annotations

import csv
import math
from collections import defaultdict

import pandas as pd
import pytest
from helpers import POLICIES, cluster_of, clusters, configs, job, prop_cluster, run, te, workloads
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.analysis import gantt
from simcore.cli import main
from simcore.engine import simulate

TOL = 1e-6


def rows(frame: pd.DataFrame) -> list[list]:
    return frame[["job_id", "node", "lane", "start", "end", "kind"]].values.tolist()


def test_preempted_job_restores_on_the_lanes_it_gets_back() -> None:
    # one 4-GPU node: A (BE, 4 GPUs) from 0; T (TE, 2 GPUs) at 10 preempts it (k8s, grace 30 -> release
    # at 40) and runs 40..60 on lanes 0-1; A restarts at 60 on lanes 0-3: restore 60 s, then 90 s of run.
    r = run([job("A", 0, 100, 4), te("T", 10, 20, 2)], prop_cluster(4), policy="k8s")
    seg = gantt.segments(r)
    assert list(seg.columns) == gantt.FRAME_COLUMNS
    expected = (
        [["A", "n0", lane, 0.0, 10.0, "run"] for lane in range(4)]
        + [["A", "n0", lane, 10.0, 40.0, "grace"] for lane in range(4)]
        + [["T", "n0", lane, 40.0, 60.0, "run"] for lane in (0, 1)]
        + [["A", "n0", lane, 60.0, 120.0, "restore"] for lane in range(4)]
        + [["A", "n0", lane, 120.0, 210.0, "run"] for lane in range(4)]
    )
    assert rows(seg) == expected
    assert set(seg["gpu"]) == {1.0} and set(seg["offset"]) == {0.0}


def test_whole_gpus_take_the_lowest_free_lanes() -> None:
    # node of 4 GPUs: a (1 GPU) lane 0, b (2 GPUs) lanes 1-2; a finishes at 10, c (2 GPUs) takes lanes 0 and 3
    r = run([job("a", 0, 10, 1), job("b", 0, 50, 2), job("c", 5, 10, 2)], prop_cluster(4), policy="fifo")
    seg = gantt.segments(r)
    lanes = {j: list(part["lane"]) for j, part in seg.groupby("job_id")}
    assert lanes == {"a": [0], "b": [1, 2], "c": [0, 3]}
    assert list(seg.loc[seg["job_id"] == "c", "start"]) == [10.0, 10.0]


def test_fractional_gpus_share_a_lane_and_fill_it_first() -> None:
    # a 2-GPU node: two 0.5-GPU jobs share lane 0 (side by side), the 1-GPU job gets lane 1,
    # a 1.5-GPU job later gets a whole lane and half of one
    jobs = [job("h1", 0, 100, 0.5), job("h2", 0, 100, 0.5), job("w", 0, 50, 1), job("x", 60, 10, 0.5, cpu=0.5)]
    r = run(jobs, cluster_of((8, 8, 2)), policy="fifo")
    seg = gantt.segments(r).set_index("job_id")
    assert (seg.loc["h1", "lane"], seg.loc["h1", "offset"], seg.loc["h1", "gpu"]) == (0, 0.0, 0.5)
    assert (seg.loc["h2", "lane"], seg.loc["h2", "offset"]) == (0, 0.5)
    assert seg.loc["w", "lane"] == 1
    assert seg.loc["x", "lane"] == 1  # lane 0 is full; lane 1 is free again after w
    r = run([job("big", 0, 10, 1.5, cpu=1)], cluster_of((8, 8, 2)), policy="fifo")
    big = gantt.segments(r)
    assert list(zip(big["lane"], big["gpu"], strict=True)) == [(0, 1.0), (1, 0.5)]


def test_fragmented_fractions_go_to_an_extra_lane() -> None:
    # the engine counts 1.8 of 2 GPUs as free room; no two 0.6-GPU pieces fit in one GPU, so the
    # third job is drawn on lane 2, past the node's two GPUs (documented in simcore.analysis.gantt)
    r = run([job(i, 0, 10, 0.6, cpu=0.5) for i in range(3)], cluster_of((8, 8, 2)), policy="fifo")
    seg = gantt.segments(r)
    assert list(seg["lane"]) == [0, 1, 2]
    assert (r.events_frame["event"] == "start").sum() == 3 and set(r.events_frame["time"]) == {0.0, 10.0}


def test_cpu_only_jobs_get_the_cpu_lane() -> None:
    r = run([job("c1", 0, 10, 0, cpu=1), job("c2", 0, 20, 0, cpu=1), job("g", 0, 5, 1)], cluster_of((4, 4, 1)))
    seg = gantt.segments(r).set_index("job_id")
    assert seg.loc["c1", "lane"] == seg.loc["c2", "lane"] == gantt.CPU_LANE
    assert seg.loc["c1", "gpu"] == 0.0 and seg.loc["g", "lane"] == 0


def test_grace_zero_has_no_grace_rows_and_restore_cut_by_a_preemption() -> None:
    r = run([job("A", 0, 100, 2), te("T", 10, 5, 2)], prop_cluster(2), policy="k8s", grace=0)
    seg = gantt.segments(r)
    assert "grace" not in set(seg["kind"])
    assert rows(seg[seg["lane"] == 0]) == [
        ["A", "n0", 0, 0.0, 10.0, "run"],
        ["T", "n0", 0, 10.0, 15.0, "run"],
        ["A", "n0", 0, 15.0, 75.0, "restore"],
        ["A", "n0", 0, 75.0, 165.0, "run"],
    ]
    # a TE job arriving during A's restore preempts it again: the restore piece ends at the signal
    r = run([job("A", 0, 100, 2), te("T", 10, 5, 2), te("U", 20, 5, 2)], prop_cluster(2), policy="k8s", grace=0)
    lane0 = rows(gantt.segments(r).query("lane == 0"))
    assert ["A", "n0", 0, 15.0, 20.0, "restore"] in lane0
    assert ["A", "n0", 0, 25.0, 85.0, "restore"] in lane0


# --------------------------------------------------------------------------- invariants


def check_geometry(r) -> None:
    """Every property DESIGN.md section 6 states for the segments, checked against the events."""
    seg = gantt.segments(r)
    jf = r.jobs_frame.set_index("job_id")
    gpu = dict(zip(r.jobs.job_id, r.jobs.request[:, 2], strict=True))
    lanes_of = {n.name: gantt.lane_count(n.capacity.gpu) for n in r.cluster.nodes}
    assert set(seg["kind"]) <= set(gantt.KINDS)
    assert (seg["end"] > seg["start"]).all()

    # a segment spans ceil(gpu) lanes (distinct), whose shares add up to the job's GPUs
    for (job_id, _s, _e, _k), part in seg.groupby(["job_id", "start", "end", "kind"]):
        g = gpu[job_id]
        if g == 0:
            assert list(part["lane"]) == [gantt.CPU_LANE]
            continue
        assert len(part) == gantt.lane_count(g) == part["lane"].nunique(), (job_id, part)
        assert part["gpu"].sum() == pytest.approx(g, abs=1e-9)
        assert (part["gpu"] == 1.0).sum() == math.floor(round(g * 1000) / 1000)

    # in a lane, pieces that overlap in time occupy disjoint stretches of at most one GPU:
    # whole-GPU pieces never share a lane, fractional ones never exceed one GPU
    gpu_rows = seg[seg["lane"] != gantt.CPU_LANE]
    all_whole = all(round(g * 1000) % 1000 == 0 for g in gpu.values())
    for (node, lane), part in gpu_rows.groupby(["node", "lane"]):
        if all_whole:
            assert lane < lanes_of[node], (node, lane)  # extra lanes only for fragmented fractions
        p = part[["start", "end", "offset", "gpu", "job_id"]].to_numpy(dtype=object)
        for i in range(len(p)):
            assert 0 <= p[i][2] and p[i][2] + p[i][3] <= 1 + 1e-9
            for k in range(i + 1, len(p)):
                if p[i][0] < p[k][1] and p[k][0] < p[i][1]:
                    assert p[i][4] != p[k][4], "a job's pieces never overlap in time"
                    disjoint = p[i][2] + p[i][3] <= p[k][2] + 1e-9 or p[k][2] + p[k][3] <= p[i][2] + 1e-9
                    assert disjoint, (node, lane, p[i], p[k])
    # the lane load at any instant is at most one GPU
    for (_node, _lane), part in gpu_rows.groupby(["node", "lane"]):
        for t in part["start"]:
            live = part[(part["start"] <= t) & (part["end"] > t)]
            assert live["gpu"].sum() <= 1 + 1e-9

    # segments agree with the events: one piece set per holding (start .. release | finish)
    one = seg.drop_duplicates(["job_id", "start", "end", "kind"])
    by_job = defaultdict(list)
    for x in one.itertuples(index=False):
        by_job[x.job_id].append((x.start, x.end, x.kind, x.node))
    holdings = defaultdict(list)  # job -> [start, node, preempt time or None, end, first?]
    started = set()
    for t, j, e, n in r.events_frame.itertuples(index=False, name=None):
        if e == "start":
            holdings[j].append([t, n, None, None, j not in started])
            started.add(j)
        elif e == "preempt":
            holdings[j][-1][2] = t
        elif e in ("release", "finish"):
            holdings[j][-1][3] = t
    for j, hs in holdings.items():
        pieces = sorted(by_job.get(j, []))
        expected_total = sum(h[3] - h[0] for h in hs)
        assert sum(e - s for s, e, _k, _n in pieces) == pytest.approx(expected_total, abs=TOL)
        for s, e, kind, node in pieces:
            h = next(h for h in hs if h[0] - TOL <= s and e <= h[3] + TOL)  # inside one holding
            assert node == h[1]
            if kind == "grace":
                assert (s, e) == (h[2], h[3])  # from the signal to the release
            elif kind == "restore":
                assert not h[4] and s == h[0] and e <= h[0] + r.config.restore + TOL
            else:
                assert e <= (h[2] if h[2] is not None else h[3]) + TOL
        for start, node, pre, end, _first in hs:
            stop = pre if pre is not None else end
            if stop > start:  # a holding with time has a piece from its start event, on its node
                assert any(s == start and n == node for s, _e, _k, n in pieces), (j, start)
            if pre is None:
                assert any(e == end and k == "run" for _s, e, k, _n in pieces), (j, end)
        # the run pieces add up to the duration plus the lost work
        run_time = sum(e - s for s, e, k, _n in pieces if k == "run")
        assert run_time == pytest.approx(jf.loc[j, "duration"] + jf.loc[j, "lost_work"], abs=TOL)


@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_geometry_on_random_workloads(policy: str, data: st.DataObject) -> None:
    cluster = data.draw(clusters())
    jobs = data.draw(workloads(cluster, int_times=True))
    config = data.draw(configs(policy))
    check_geometry(simulate(jobs, cluster, config))


def test_geometry_and_determinism_on_the_demo_preset() -> None:
    from simcore.core.model import SimConfig
    from simcore.workload.presets import generate

    wl = generate("demo", 1, {"jobs": 150})
    for policy in ("fifo", "fitgpp", "random"):
        r = simulate(wl.table, wl.cluster, SimConfig(policy=policy, checkpoint="periodic", checkpoint_interval=600))
        check_geometry(r)
        assert gantt.segments(r).equals(gantt.segments(simulate(wl.table, wl.cluster, r.config)))


def test_cli_writes_the_gantt_csv_escaped(tmp_path) -> None:
    wl = tmp_path / "w.csv"
    wl.write_text(
        "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n=1+1,0,100,1,1,2,BE\nt,10,20,1,1,2,TE\nc,0,5,1,1,0,BE\n"
    )
    out = tmp_path / "g.csv"
    rc = main(
        [
            "run",
            str(wl),
            "--policy",
            "k8s",
            "--nodes",
            "1",
            "--node-cpu",
            "4",
            "--node-mem-gb",
            "4",
            "--node-gpu",
            "2",
            "--gantt-out",
            str(out),
        ]
    )
    assert rc == 0
    with out.open() as f:
        table = list(csv.reader(f))
    assert table[0] == gantt.GANTT_COLUMNS
    body = table[1:]
    assert ["'=1+1", "BE", "n0", "0", "0.0", "10.0", "run"] in body  # CSV-injection escaped id
    assert ["c", "BE", "n0", "cpu", "0.0", "5.0", "run"] in body
    assert {r[6] for r in body} == {"run", "grace", "restore"}
    assert len(body) == 2 * 4 + 2 + 1  # 2 lanes x (run, grace, restore, run) for =1+1, 2 x run for t, c


class _AllLanes:
    """The lane rules of simcore.analysis.gantt's docstring on a list of every lane, made at once: the
    reference its lanes-made-when-needed version must equal (a node of a billion GPUs made a
    billion lists: a MemoryError)."""

    def __init__(self, count: int) -> None:
        self.used: list[list[tuple[int, int]]] = [[] for _ in range(count)]

    def take(self, units: int) -> list[tuple[int, int, int]]:
        pieces, taken = [], set()
        for _ in range(units // gantt.UNIT):  # whole GPUs: the lowest empty lane, else an extra one
            lane = next((i for i, u in enumerate(self.used) if not u and i not in taken), None)
            if lane is None:
                self.used.append([])
                lane = len(self.used) - 1
            taken.add(lane)
            pieces.append((lane, 0, gantt.UNIT))
        part = units % gantt.UNIT
        if part:  # the tightest free gap: least room, then lowest lane, then lowest offset
            gaps = [
                (room, i, lo)
                for i, u in enumerate(self.used)
                if i not in taken
                for lo, room in gantt._gaps(u)
                if room >= part
            ]
            if not gaps:
                self.used.append([])
                gaps = [(gantt.UNIT, len(self.used) - 1, 0)]
            _, lane, lo = min(gaps)
            pieces.append((lane, lo, part))
        for lane, lo, size in pieces:
            self.used[lane] = sorted([*self.used[lane], (lo, lo + size)])
        return pieces

    def give_back(self, pieces: list[tuple[int, int, int]]) -> None:
        for lane, lo, size in pieces:
            self.used[lane].remove((lo, lo + size))


@given(
    st.integers(0, 5),
    st.lists(st.tuples(st.booleans(), st.sampled_from([250, 500, 750, 1000, 1500, 2000, 2600, 4000])), max_size=30),
)
def test_lanes_made_when_needed_equal_every_lane_made_at_once(count: int, ops: list[tuple[bool, int]]) -> None:
    lazy, full = gantt._Lanes(count), _AllLanes(count)
    held: list[list[tuple[int, int, int]]] = []
    for give_back, units in ops:
        if give_back and held:
            pieces = held.pop(units % len(held))
            lazy.give_back(pieces)
            full.give_back(pieces)
        else:
            pieces = lazy.take(units)
            assert pieces == full.take(units)
            held.append(pieces)


def test_a_node_of_a_billion_gpus_makes_only_the_lanes_its_jobs_hold(tmp_path) -> None:
    """A 1.5-GPU job and a 3-GPU job on a node of 1e9 GPUs: lanes 0 and half of 1, then 2 to 4."""
    wl = tmp_path / "w.csv"
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\na,0,100,1,1,1.5,BE\nb,0,100,1,1,3,BE\n")
    out = tmp_path / "g.csv"
    cluster = ["--nodes", "1", "--node-gpu", "1e9", "--node-cpu", "8", "--node-mem-gb", "8"]
    assert main(["run", str(wl), *cluster, "--gantt-out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [(r["job_id"], r["lane"]) for r in rows] == [("a", "0"), ("a", "1"), ("b", "2"), ("b", "3"), ("b", "4")]
