"""The invariants of a run with queues, replayed from its events alone (DESIGN-queues points 4-12,
DESIGN-failures point 11); shared by tests/test_queues_properties.py and, with down time,
tests/test_queues_failures.py. Written from the DESIGN texts, never from the engine's code.

- no node over capacity, TE never preempted, progress adds up (the replay of life cycles, for
  runs without gangs and without down time: tests/test_gang_properties.py replays gangs,
  :mod:`helpers.downtime_cases` runs with down time);
- no queue ever above its quota + borrow limit; fifo and priority never preempt;
- the ledger's U and R before each decision are the replay's, those after it the replay's minus its
  victims; every reclaim's preemptor is within quota and takes each victim while the victim's queue
  still borrows (point 9);
- one ledger row per decision: its victims are exactly the preempted jobs (a drain or a failure
  never is one), and the summary's per-queue preemption counts add up to the run's preemptions.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from simcore.analysis import queue_metrics
from simcore.analysis.metrics import summarize
from simcore.core.model import SimConfig
from simcore.core.result import DRAIN, FAIL, FINISH, PREEMPT, RELEASE, START, SimResult

from .replay import expected_lost_work, progress, replay


def usage_replay(result: SimResult) -> list[tuple[float, dict[int, int], dict[int, int]]]:
    """(time, U, R) per queue in GPU units after every event row, from the events alone: a start adds
    to U and R; a preempt or drain signal takes the job out of R, its release out of U; a finish
    takes it out of both; a failure out of U, and out of R when it was not signalled before
    (DESIGN-failures point 11). A gang writes a row per worker, each its per-worker GPUs."""
    gpu = np.rint(result.jobs.request[:, 2] * 1000).astype(np.int64)
    queue = result.queue
    assert queue is not None
    u: dict[int, int] = defaultdict(int)
    r: dict[int, int] = defaultdict(int)
    signalled: set[int] = set()  # jobs in their grace period (a preempt or drain row since their start)
    out = []
    for t, j, code in zip(result.ev_time.tolist(), result.ev_job.tolist(), result.ev_code.tolist(), strict=True):
        if j < 0:  # node_down, node_up
            out.append((t, dict(u), dict(r)))
            continue
        q, g = int(queue[j]), int(gpu[j])
        if code == START:
            u[q] += g
            r[q] += g
            signalled.discard(j)
        elif code in (PREEMPT, DRAIN):
            r[q] -= g
            signalled.add(j)
        elif code == RELEASE:
            u[q] -= g
        elif code == FINISH:
            u[q] -= g
            r[q] -= g
        elif code == FAIL:
            u[q] -= g
            if j not in signalled:
                r[q] -= g
        out.append((t, dict(u), dict(r)))
    return out


def check_queues(result: SimResult, config: SimConfig) -> None:
    """The invariants of the module docstring."""
    spec = result.queues
    assert spec is not None and result.queue is not None
    te = result.jobs.is_te
    assert not te[result.ev_job[result.ev_code == PREEMPT]].any()  # TE never preempted
    if not result.jobs.has_gangs and result.downtime is None:
        rp = replay(result)
        assert not rp.errors, rp.errors[:5]
        for j, segs in rp.segments.items():  # progress adds up to duration + lost work
            i = int(np.flatnonzero(result.jobs.job_id == j)[0])
            lost, _ = expected_lost_work(segs, config)
            done = sum(progress(s, config.restore) for s in segs)
            assert math.isclose(done, float(result.jobs.duration[i]) + lost, abs_tol=1e-6)
    limit = [q.limit_units for q in spec.queues]
    quota = [q.quota_units for q in spec.queues]
    steps = usage_replay(result)
    for _, u, _ in steps:  # no queue ever above its quota + borrow limit
        assert all(v <= limit[q] for q, v in u.items())
    if steps:  # everything held is given back by the end
        assert not any(steps[-1][1].values()) and not any(steps[-1][2].values())
    if config.policy in ("fifo", "priority"):
        assert int(result.preemptions.sum()) == 0 and result.ledger == ()
    gpus = np.rint(result.jobs.request[:, 2] * 1000).astype(np.int64) * np.asarray(result.jobs.workers)
    rows = iter(range(len(steps)))
    for t, j, victims, touched, before, after in result.ledger:
        # the ledger's "before" is the replay's state just before the decision's first preempt row
        k = next(
            k for k in rows if result.ev_time[k] == t and result.ev_code[k] == PREEMPT and result.ev_job[k] in victims
        )
        u0, r0 = steps[k - 1][1:] if k else ({}, {})
        assert [(u0.get(q, 0), r0.get(q, 0)) for q in touched] == [(u, r) for u, r, _ in before]
        mine = int(result.queue[j])
        others = [v for v in victims if int(result.queue[v]) != mine]
        if others:  # a reclaim: its preemptor within quota, each victim taken while its queue borrows
            assert u0.get(mine, 0) + int(gpus[j]) <= quota[mine]
            for p in {int(result.queue[v]) for v in others}:
                taken = [int(gpus[v]) for v in others if int(result.queue[v]) == p]
                assert r0.get(p, 0) - sum(taken) + max(taken) > quota[p]
        freed = [sum(int(gpus[v]) for v in victims if int(result.queue[v]) == q) for q in touched]
        assert [r for _, r, _ in after] == [r0.get(q, 0) - f for q, f in zip(touched, freed, strict=True)]
        released = 0 if config.grace > 0 else 1  # with grace 0 "after" is after the releases
        assert [u for u, _, _ in after] == [u0.get(q, 0) - released * f for q, f in zip(touched, freed, strict=True)]
    # the ledger's victims are the preempted jobs, each once per signal (a gang: one row per worker)
    pre = result.ev_code == PREEMPT
    signals = sorted({(float(t), int(j)) for t, j in zip(result.ev_time[pre], result.ev_job[pre], strict=True)})
    assert sorted((float(t), int(v)) for t, _, victims, *_ in result.ledger for v in victims) == signals
    counts = summarize(result)["queues"]
    suffered = sum(sum(e["preemptions_suffered"].values()) for e in counts.values())
    caused = sum(sum(e["preemptions_caused"].values()) for e in counts.values())
    assert suffered == caused == len(signals) == int(result.preemptions.sum())
    # the usage curve (the summary's integrals) is the replay's, at the end of every instant
    curve = queue_metrics.usage_over_time(result)
    for q, queue in enumerate(spec.queues):
        mine = curve[curve["queue"] == queue.name]
        last = {t: (u.get(q, 0), r.get(q, 0)) for t, u, r in steps}  # the state after each instant's last row
        for t, used, running in zip(mine["time"], mine["used"], mine["running"], strict=True):
            if t in last:
                assert (round(used * 1000), round(running * 1000)) == last[t]
