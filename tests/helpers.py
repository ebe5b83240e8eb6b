"""Shared helpers for the core tests: tiny builders, event-log comparison and an
independent replay of the events frame (capacity, life cycle, run segments, progress).

Everything here is written from DESIGN.md alone, never from the engine's code, so that
the tests built on it can disagree with the engine.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from simcore.model import ClusterSpec, Job, JobClass, JobTable, Node, Resources, SimConfig

# --------------------------------------------------------------------------- builders


def job(
    job_id: str | int,
    submit: float,
    duration: float,
    gpu: float,
    *,
    cpu: float | None = None,
    mem: float | None = None,
    te: bool = False,
) -> Job:
    """A job; cpu and mem default to the gpu count ("proportional" jobs on nodes built by
    :func:`prop_cluster`, so every dimension has the same normalised share)."""
    return Job(
        job_id=str(job_id),
        submit_time=float(submit),
        duration=float(duration),
        request=Resources(
            float(gpu if cpu is None else cpu),
            float(gpu if mem is None else mem),
            float(gpu),
        ),
        job_class=JobClass.TE if te else JobClass.BE,
    )


def te(job_id: str | int, submit: float, duration: float, gpu: float, **kw) -> Job:
    return job(job_id, submit, duration, gpu, te=True, **kw)


def prop_cluster(*gpus: float) -> ClusterSpec:
    """Nodes n0.. with capacity (cpu=g, mem_gb=g, gpu=g) for each g given."""
    return cluster_of(*[(g, g, g) for g in gpus])


def cluster_of(*caps: tuple[float, float, float]) -> ClusterSpec:
    """Nodes n0.. with the given (cpu, mem_gb, gpu) capacities."""
    return ClusterSpec(tuple(Node(f"n{i}", Resources(*map(float, c))) for i, c in enumerate(caps)))


def run(jobs: list[Job], cluster: ClusterSpec, **knobs):
    from simcore.engine import simulate

    return simulate(JobTable.from_jobs(jobs), cluster, SimConfig(**knobs))


# --------------------------------------------------------------------------- event logs

Event = tuple[float, str, str, str]
_PRE_PASS = ("finish", "release", "submit")


def events_of(result) -> list[Event]:
    ev = result.events_frame
    return [
        (float(t), str(j), str(e), "" if n is None else str(n)) for t, j, e, n in ev.itertuples(index=False, name=None)
    ]


def canonical(events: list[Event]) -> list[Event]:
    """DESIGN fixes the order of event *kinds* within an instant but not the order of two
    finishes (or two submits) at the same instant: sort such runs of consecutive rows with
    the same time and kind (finish/release/submit) by job_id. Decisions keep their order."""
    out: list[Event] = []
    i = 0
    while i < len(events):
        k = i + 1
        t, _, kind, _ = events[i]
        if kind in _PRE_PASS:
            while k < len(events) and events[k][0] == t and events[k][2] == kind:
                k += 1
            out.extend(sorted(events[i:k], key=lambda e: e[1]))
        else:
            out.append(events[i])
        i = k
    return out


def _fmt(events) -> str:
    return "\n".join(f"  {e!r}" for e in events)


def assert_events(result, expected: list[Event]) -> None:
    actual = canonical(events_of(result))
    exp = canonical([(float(t), str(j), e, n) for t, j, e, n in expected])
    if actual != exp:
        first = next(
            (i for i, (a, b) in enumerate(zip(actual, exp, strict=False)) if a != b), min(len(actual), len(exp))
        )
        raise AssertionError(f"event logs differ from row {first}\nexpected:\n{_fmt(exp)}\nactual:\n{_fmt(actual)}")


def assert_jobs(result, expected: dict[str, tuple]) -> None:
    """expected: job_id -> (first_start, finish, preemptions, lost_work, node)."""
    jf = result.jobs_frame
    got = {
        str(r.job_id): (float(r.first_start), float(r.finish), int(r.preemptions), float(r.lost_work), str(r.node))
        for r in jf.itertuples(index=False)
    }
    exp = {str(k): (float(a), float(b), int(c), float(d), str(e)) for k, (a, b, c, d, e) in expected.items()}
    assert got == exp, f"jobs frame differs\nexpected: {exp}\nactual:   {got}"
    # the derived columns follow the DESIGN section 5 formulas
    np.testing.assert_allclose(jf["wait"], jf["first_start"] - jf["submit_time"])
    np.testing.assert_allclose(jf["jct"], jf["finish"] - jf["submit_time"])


# --------------------------------------------------------------------------- replay


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


def expected_lost_work(segs: list[Segment], config: SimConfig) -> tuple[float, float]:
    """(lost work, work kept before the last segment) by the DESIGN section 2 rule."""
    kept = 0.0
    lost = 0.0
    for s in segs:
        if s.end_kind != "preempt":
            continue
        attained = kept + progress(s, config.restore)
        if config.checkpoint == "on_preempt":
            new_kept = attained
        elif config.checkpoint == "none":
            new_kept = 0.0
        else:
            c = config.checkpoint_interval
            new_kept = math.floor(attained / c + 1e-12) * c
        lost += attained - new_kept
        kept = new_kept
    return lost, kept


def queue_key(job_ids, submit_times, is_te, *, te_first: bool):
    """Sort keys of DESIGN rule 2 (ids numeric when every id is an integer)."""
    ids = [str(x) for x in job_ids]

    def is_int(s: str) -> bool:
        try:
            int(s)
        except ValueError:
            return False
        return True

    numeric = all(is_int(s) for s in ids)
    keys = []
    for jid, sub, t in zip(ids, submit_times, is_te, strict=True):
        idk = int(jid) if numeric else jid
        keys.append(((0 if t else 1) if te_first else 0, float(sub), idk))
    return keys
