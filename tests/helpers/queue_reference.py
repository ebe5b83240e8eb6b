"""A deliberately naive reference simulation of runs with queues, written from
../shared/DESIGN-queues.md (and docs/policies.md's "Queues" choices) alone: usage recomputed from
every job's status at each check, the queue order sorted afresh at every pass, every pending job
tried in that order. Single-worker jobs; policies fifo, priority, k8s and lrtp; min_runtime 0."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcore.core.model import ClusterSpec, JobTable, SimConfig

from .logs import Event
from .reference import Ambiguous, place
from .replay import queue_key

INF = math.inf


@dataclass
class _Q:
    i: int
    id: str
    q: int
    submit: float
    dur: float
    req: np.ndarray
    g: float  # GPUs
    te: bool
    key: tuple
    status: str = "new"  # new, pending, running, preempting, done, requeue
    node: int = -1
    seg_start: float = 0.0
    kept: float = 0.0
    preemptions: int = 0
    release_at: float = math.inf


def reference_queues(jobs: JobTable, cluster: ClusterSpec, config: SimConfig) -> list[Event]:
    """The expected event log of `jobs` on `cluster` (with ``cluster.queues``) under `config`.
    Raises Ambiguous where a victim order tie is left open. Resources and times should be exact
    in floating point (integers or binary fractions)."""
    cfg, spec = config, cluster.queues
    assert spec is not None and cfg.policy in ("fifo", "priority", "k8s", "lrtp") and cfg.min_runtime == 0
    preemptive = cfg.policy in ("k8s", "lrtp")
    cap = cluster.capacity_matrix()
    names = cluster.names
    quota = [q.gpu for q in spec.queues]
    limit = [q.gpu + q.borrow_limit for q in spec.queues]
    weight = [q.weight for q in spec.queues]
    qi = {q.name: i for i, q in enumerate(spec.queues)}
    ids = [str(x) for x in jobs.job_id]
    qcol = jobs.extra.get("queue")
    qnames = [
        "default" if qcol is None or not str(qcol[i] or "").strip() else str(qcol[i]).strip() for i in range(len(ids))
    ]
    keys = queue_key(ids, jobs.submit_time, jobs.is_te, te_first=cfg.policy != "fifo")
    J = []
    for i in range(len(ids)):
        req = jobs.request[i]
        q = qi[qnames[i]]
        if (req[None, :] <= cap).all(axis=1).any() and req[2] <= limit[q]:
            J.append(
                _Q(
                    i,
                    ids[i],
                    q,
                    float(jobs.submit_time[i]),
                    float(jobs.duration[i]),
                    req,
                    float(req[2]),
                    bool(jobs.is_te[i]),
                    keys[i],
                )
            )
    free = cap.copy()
    nominations: dict[int, list] = {}  # job index -> [node, reservation, set of victims in grace]
    out: list[Event] = []
    by_i = {j.i: j for j in J}

    def U(q: int) -> float:
        return sum(j.g for j in J if j.q == q and j.status in ("running", "preempting"))

    def R(q: int) -> float:
        return sum(j.g for j in J if j.q == q and j.status == "running")

    def N(q: int, but: int | None = None) -> float:
        return sum(by_i[t].g for t in nominations if by_i[t].q == q and t != but)

    def within(j: _Q) -> bool:  # j's own nomination never counted twice
        return quota[j.q] == INF or (j.g > 0 and U(j.q) + N(j.q, but=j.i) + j.g <= quota[j.q])

    def quota_ok(j: _Q) -> bool:
        return U(j.q) + N(j.q, but=j.i) + j.g <= limit[j.q]

    def share(q: int) -> float:
        return round(max(0.0, U(q) - quota[q]) / weight[q], 9)

    def restore_of(j: _Q) -> float:
        return cfg.restore if j.preemptions > 0 else 0.0

    def attained(j: _Q, t: float) -> float:
        return j.kept + max(0.0, t - j.seg_start - restore_of(j))

    def finish_at(j: _Q) -> float:
        return j.seg_start + restore_of(j) + (j.dur - j.kept)

    def reserved(n: int, exclude: int | None = None) -> np.ndarray:
        r = np.zeros(3)
        for ti, (m, res, _) in nominations.items():
            if m == n and ti != exclude:
                r = r + res
        return r

    def start(j: _Q, n: int, t: float) -> None:
        free[n] -= j.req
        j.status, j.node, j.seg_start = "running", n, t
        out.append((t, j.id, "start", names[n]))

    def preempt(v: _Q, t: float) -> None:
        a = attained(v, t)
        if cfg.checkpoint == "none":
            v.kept = 0.0
        elif cfg.checkpoint == "periodic":
            v.kept = math.floor(a / cfg.checkpoint_interval) * cfg.checkpoint_interval
        else:
            v.kept = a
        v.preemptions += 1
        v.status, v.release_at = "preempting", t + cfg.grace
        out.append((t, v.id, "preempt", names[v.node]))

    def release(v: _Q, t: float) -> None:
        free[v.node] += v.req
        v.status, v.release_at = "pending", math.inf
        out.append((t, v.id, "release", names[v.node]))
        for ti, (_m, res, vic) in nominations.items():
            if v.i in vic:
                vic.discard(v.i)
                res[:] = np.minimum(by_i[ti].req, res + v.req)

    def eligible(j: _Q, vs: list[_Q]) -> bool:
        for p in {v.q for v in vs if v.q != j.q}:
            mine = [v.g for v in vs if v.q == p]
            if not R(p) - sum(mine) + max(mine) > quota[p]:
                return False
        return True

    def search(j: _Q, which: str, t: float, reverse: bool):
        missing = max(0.0, U(j.q) + N(j.q, but=j.i) + j.g - limit[j.q]) if which == "b" else 0.0
        best = None
        for n in range(len(cap)):
            avail = free[n] - reserved(n)
            cands = [
                c
                for c in J
                if c.status == "running"
                and c.node == n
                and not c.te
                and ((which != "b" and c.q != j.q and R(c.q) > quota[c.q]) or (which != "a" and c.q == j.q))
            ]

            def fits(vs, avail=avail) -> bool:
                room = avail + sum((v.req for v in vs), np.zeros(3))
                return bool((room >= j.req).all()) and sum(v.g for v in vs if v.q == j.q) >= missing

            if not cands or not fits(cands):
                continue
            rank = {c.i: k for k, c in enumerate(sorted(cands, key=lambda c: c.key))}
            tb = (lambda c, rank=rank: -rank[c.i]) if reverse else (lambda c, rank=rank: rank[c.i])
            if cfg.policy == "k8s":
                vs = list(cands)
                for c in sorted(cands, key=lambda c: (c.seg_start, tb(c))):
                    rest = [v for v in vs if v is not c]
                    if fits(rest):
                        vs = rest
                if not eligible(j, vs):
                    continue
                k = (len(vs), -min(v.seg_start for v in vs), n)
            else:  # lrtp: additions that keep the set eligible, until it fits; then reprieves
                vs = []
                for c in sorted(cands, key=lambda c: (-(c.dur - attained(c, t)), tb(c))):
                    if fits(vs):
                        break
                    if eligible(j, [*vs, c]):
                        vs.append(c)
                if not vs or not fits(vs):
                    continue
                for c in list(reversed(vs)):
                    rest = [v for v in vs if v is not c]
                    if fits(rest):
                        vs = rest
                k = (len(vs), -min(v.dur - attained(v, t) for v in vs), n)
            if best is None or k < best[0]:
                best = (k, vs, n)
        return None if best is None else (sorted(v.i for v in best[1]), best[2])

    def victims(j: _Q, t: float):
        if within(j):
            plan = (
                ["a"]
                if any(
                    p != j.q and R(p) > quota[p] and any(c.q == p and c.status == "running" and not c.te for c in J)
                    for p in range(len(quota))
                )
                else []
            )
            plan += ["ab"] if j.te else []
        else:
            plan = ["b"] if j.te else []
        for which in plan:
            found = [search(j, which, t, rev) for rev in (False, True)]
            if found[0] != found[1]:
                raise Ambiguous(f"{cfg.policy}: victim order tie")
            if found[0] is not None:
                return [by_i[i] for i in found[0][0]], found[0][1]
        return None

    arrivals = sorted(J, key=lambda j: j.submit)
    a = 0
    while True:
        times = [j.submit for j in arrivals[a : a + 1]]
        times += [finish_at(j) for j in J if j.status == "running"]
        times += [j.release_at for j in J if j.status == "preempting"]
        if not times:
            break
        t = min(times)
        for j in [j for j in J if j.status == "running" and finish_at(j) == t]:
            free[j.node] += j.req
            j.status = "done"
            out.append((t, j.id, "finish", names[j.node]))
        for v in sorted((j for j in J if j.status == "preempting" and j.release_at == t), key=lambda j: j.key):
            release(v, t)
        while a < len(arrivals) and arrivals[a].submit == t:
            arrivals[a].status = "pending"
            out.append((t, arrivals[a].id, "submit", ""))
            a += 1
        # the pass: the order is fixed at its start (DESIGN-queues point 7)
        pending = [j for j in J if j.status == "pending"]
        group = {j.i: within(j) for j in pending}
        shares = {q: share(q) for q in range(len(quota))}
        order = sorted(pending, key=lambda j: (0, 0.0, j.key) if group[j.i] else (1, shares[j.q], j.key))
        stopped = False  # backfill none stopped the pass: the nominated jobs after it may still start
        for j in order:
            if j.status != "pending" or (stopped and j.i not in nominations):
                continue
            nom = nominations.get(j.i)
            if nom is not None:
                m, res, vic = nom
                if quota_ok(j):
                    own = bool((free[m] - reserved(m, exclude=j.i) >= j.req).all())
                    others = np.array([k != m for k in range(len(cap))])
                    avail = free - np.array([reserved(k, exclude=j.i) for k in range(len(cap))])
                    n_other = place(avail, cap, j.req, cfg.placement, mask=others)
                    if own or n_other >= 0:
                        del nominations[j.i]
                        start(j, m if own else n_other, t)
                        continue
                if vic or stopped:
                    continue  # waits for its victims (or the pass stopped); blocks nobody
                del nominations[j.i]  # tried afresh (point 10)
            blocked = False
            if quota_ok(j):
                avail = free - np.array([reserved(k) for k in range(len(cap))])
                n = place(avail, cap, j.req, cfg.placement)
                if n >= 0:
                    start(j, n, t)
                    continue
                blocked = True
            chosen = victims(j, t) if preemptive else None
            if chosen is not None:
                vs, n = chosen
                res = np.minimum(np.maximum(free[n] - reserved(n), 0.0), j.req)
                nominations[j.i] = [n, res, {v.i for v in vs}]
                for v in vs:
                    preempt(v, t)
                if cfg.grace == 0:
                    for v in vs:
                        release(v, t)
                        v.status = "requeue"
                    del nominations[j.i]
                    start(j, n, t)
                continue
            if blocked and cfg.backfill == "none":
                stopped = True
        for j in J:
            if j.status == "requeue":
                j.status = "pending"
    return out
