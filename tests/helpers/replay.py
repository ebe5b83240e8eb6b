"""An independent replay of the events frame: capacity, life cycle, run segments, progress
and lost work by the DESIGN section 2 rule; queue keys by DESIGN rule 2."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from simcore.core.model import SimConfig

from .logs import events_of


@dataclass
class Segment:
    job_id: str
    node: str
    start: float
    end: float
    end_kind: str  # "preempt" or "finish"
    after_preemption: bool  # a restart: pays `restore`


@dataclass
class Replay:
    segments: dict[str, list[Segment]] = field(default_factory=lambda: defaultdict(list))
    preempt_times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    release_times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    submit_time: dict[str, float] = field(default_factory=dict)
    finish_time: dict[str, float] = field(default_factory=dict)
    finish_node: dict[str, str] = field(default_factory=dict)
    first_start: dict[str, float] = field(default_factory=dict)
    max_overuse: float = 0.0
    errors: list[str] = field(default_factory=list)
    # per instant: (time, jobs pending right after the pass, free per node, indexes of the
    # nodes holding a preempting job, whether a release was logged at that instant)
    after_pass: list[tuple[float, list[str], np.ndarray, set[int], bool]] = field(default_factory=list)
    # per preempt event: (time, victim, node, TE jobs pending at that moment)
    preempt_context: list[tuple[float, str, str, list[str]]] = field(default_factory=list)


def replay(result, *, tol: float = 1e-9, track_passes: bool = False) -> Replay:
    """Replay the events frame: node usage (start allocates, release/finish free), each
    job's legal life cycle, its run segments. Collects every violation in .errors."""
    jobs = result.jobs
    req = {str(j): jobs.request[i] for i, j in enumerate(jobs.job_id)}
    cap = result.cluster.capacity_matrix()
    names = list(result.cluster.names)
    idx = {n: i for i, n in enumerate(names)}
    used = np.zeros_like(cap)
    state: dict[str, str] = {}
    node_of: dict[str, str] = {}
    seg_start: dict[str, float] = {}
    restarted: dict[str, bool] = {}
    rp = Replay()
    last_t = -math.inf
    released_now = False
    ev = events_of(result)
    te = {str(j): bool(x) for j, x in zip(jobs.job_id, jobs.is_te, strict=True)}
    for k, (t, j, e, n) in enumerate(ev):
        if t < last_t:
            rp.errors.append(f"row {k}: time goes back {last_t} -> {t}")
        last_t = t
        st = state.get(j, "new")
        i = idx.get(n, -1)
        if j not in req:
            rp.errors.append(f"row {k}: unknown job {j}")
        elif e == "submit":
            if st != "new":
                rp.errors.append(f"row {k}: second submit of {j}")
            if n != "":
                rp.errors.append(f"row {k}: submit with node {n!r}")
            state[j] = "pending"
            rp.submit_time[j] = t
        elif i < 0:
            rp.errors.append(f"row {k}: {e} of {j} on unknown node {n!r}")
        elif e == "start":
            if st != "pending":
                rp.errors.append(f"row {k}: start of {j} in state {st}")
            used[i] += req[j]
            over = float(np.max(used[i] - cap[i]))
            rp.max_overuse = max(rp.max_overuse, over)
            if over > tol:
                rp.errors.append(f"row {k}: node {n} over capacity by {over} at t={t} after starting {j}")
            state[j] = "running"
            node_of[j] = n
            seg_start[j] = t
            rp.first_start.setdefault(j, t)
        elif e == "preempt":
            rp.preempt_context.append((t, j, n, [x for x, s in state.items() if s == "pending" and te[x]]))
            if st != "running" or node_of.get(j) != n:
                rp.errors.append(f"row {k}: preempt of {j} in state {st} on {n} (runs on {node_of.get(j)})")
            else:
                rp.segments[j].append(Segment(j, n, seg_start[j], t, "preempt", restarted.get(j, False)))
            rp.preempt_times[j].append(t)
            state[j] = "preempting"
        elif e == "release":
            if st != "preempting" or node_of.get(j) != n:
                rp.errors.append(f"row {k}: release of {j} in state {st} on {n}")
            used[i] -= req[j]
            rp.release_times[j].append(t)
            released_now = True
            state[j] = "pending"
            restarted[j] = True
        elif e == "finish":
            if st != "running" or node_of.get(j) != n:
                rp.errors.append(f"row {k}: finish of {j} in state {st} on {n}")
            else:
                rp.segments[j].append(Segment(j, n, seg_start[j], t, "finish", restarted.get(j, False)))
            used[i] -= req[j]
            state[j] = "done"
            rp.finish_time[j] = t
            rp.finish_node[j] = n
        else:
            rp.errors.append(f"row {k}: unknown event {e!r}")
        if k + 1 == len(ev) or ev[k + 1][0] != t:  # the instant is over: its pass is done
            if track_passes:
                pending = [x for x, s in state.items() if s == "pending"]
                preempting = {idx[node_of[x]] for x, s in state.items() if s == "preempting"}
                rp.after_pass.append((t, pending, cap - used, preempting, released_now))
            released_now = False
    for j in req:
        if state.get(j) != "done":
            rp.errors.append(f"job {j} ends in state {state.get(j, 'never submitted')}")
    return rp


def progress(seg: Segment, restore: float) -> float:
    """Useful work done in one run segment (restore paid on restarts only, clipped at 0)."""
    r = restore if seg.after_preemption else 0.0
    return max(0.0, seg.end - seg.start - r)


def save_failures(result, config: SimConfig) -> dict[str, list[bool]]:
    """Per job, whether each of its on_preempt saves failed, in its order, by the rule of docs/policies.md:
    surely when save_time > grace, else one draw of ``default_rng(SeedSequence(seed, spawn_key=(0,)))``
    per preempt event in event (signal) order, only when 0 < save_failure < 1, failing below save_failure."""
    ev = result.events_frame
    signalled = [str(j) for j in ev.loc[ev["event"] == "preempt", "job_id"]]
    p = 0.0 if config.checkpoint != "on_preempt" else 1.0 if config.save_time > config.grace else config.save_failure
    if 0 < p < 1:
        rng = np.random.default_rng(np.random.SeedSequence(config.seed, spawn_key=(0,)))
        outcomes = [bool(u < p) for u in rng.random(len(signalled))]
    else:
        outcomes = [p >= 1] * len(signalled)
    out: dict[str, list[bool]] = defaultdict(list)
    for j, failed in zip(signalled, outcomes, strict=True):
        out[j].append(failed)
    return out


def expected_lost_work(segs: list[Segment], config: SimConfig, failed: list[bool] | None = None) -> tuple[float, float]:
    """(lost work, work kept before the last segment) by the DESIGN section 2 rule; `failed`: whether
    each on_preempt save failed (losing the work since the last successful save or start)."""
    kept = 0.0
    lost = 0.0
    outcomes = iter(failed or [])
    for s in segs:
        if s.end_kind != "preempt":
            continue
        attained = kept + progress(s, config.restore)
        if config.checkpoint == "on_preempt":
            new_kept = kept if next(outcomes, False) else attained
        elif config.checkpoint == "none":
            new_kept = 0.0
        else:
            c = config.checkpoint_interval
            new_kept = math.floor(attained / c + 1e-12) * c
        lost += attained - new_kept
        kept = new_kept
    return lost, kept


def queue_key(job_ids, submit_times, is_te, *, te_first: bool):
    """Sort keys of DESIGN rule 2 (ids numeric, of any size, when every id matches
    ``-?[0-9]+``; else text)."""
    ids = [str(x) for x in job_ids]
    numeric = all(re.fullmatch(r"-?[0-9]+", s) for s in ids)
    keys = []
    for jid, sub, t in zip(ids, submit_times, is_te, strict=True):
        idk = int(jid) if numeric else jid
        keys.append(((0 if t else 1) if te_first else 0, float(sub), idk))
    return keys
