"""Two deliberately naive reference simulations written from DESIGN.md alone: non-preemptive
(fifo, priority) and preemptive (every policy but random), plus the canonical order of a
decision's rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcore.core.model import ClusterSpec, JobTable, SimConfig

from .logs import Event, canonical
from .replay import queue_key


def place(free: np.ndarray, cap: np.ndarray, req: np.ndarray, placement: str, mask: np.ndarray | None = None) -> int:
    """DESIGN rule 6 on the nodes where `req` fits (and `mask` allows); -1 when none."""
    fits = (free >= req[None, :]).all(axis=1)
    if mask is not None:
        fits &= mask
    cand = np.flatnonzero(fits)
    if cand.size == 0:
        return -1
    if placement == "first_fit":
        return int(cand[0])
    score = np.round(((free[cand] - req[None, :]) / cap[cand]).max(axis=1), 9)
    pick = np.argmin(score) if placement == "best_fit" else np.argmax(score)  # first of ties
    return int(cand[pick])


def reference_nonpreemptive(jobs: JobTable, cluster: ClusterSpec, config: SimConfig) -> list[Event]:
    """An independent, deliberately naive simulation of `fifo` and `priority` (DESIGN rules
    1-3, 6, 8): returns the expected event log. Capacities must be > 0 in every dimension."""
    assert config.policy in ("fifo", "priority")
    cap = cluster.capacity_matrix()
    names = cluster.names
    ids = [str(x) for x in jobs.job_id]
    ok = [bool((jobs.request[i][None, :] <= cap).all(axis=1).any()) for i in range(len(ids))]
    keys = queue_key(ids, jobs.submit_time, jobs.is_te, te_first=config.policy != "fifo")
    free = cap.copy()
    arrivals = sorted((float(jobs.submit_time[i]), i) for i in range(len(ids)) if ok[i])
    running: list[tuple[float, int, int]] = []  # (finish time, job, node)
    pending: list[int] = []
    out: list[Event] = []
    a = 0
    while a < len(arrivals) or running:
        t = min(([arrivals[a][0]] if a < len(arrivals) else []) + [f for f, _, _ in running])
        for _, i, n in sorted(x for x in running if x[0] == t):
            out.append((t, ids[i], "finish", names[n]))
            free[n] += jobs.request[i]
        running = [x for x in running if x[0] != t]
        while a < len(arrivals) and arrivals[a][0] == t:
            i = arrivals[a][1]
            out.append((t, ids[i], "submit", ""))
            pending.append(i)
            a += 1
        pending.sort(key=lambda i: keys[i])
        still = []
        blocked = False
        for i in pending:
            n = -1 if blocked else place(free, cap, jobs.request[i], config.placement)
            if n < 0:
                still.append(i)
                blocked = blocked or config.backfill == "none"
                continue
            free[n] -= jobs.request[i]
            out.append((t, ids[i], "start", names[n]))
            running.append((t + float(jobs.duration[i]), i, n))
        pending = still
    return out


# --------------------------------------------------------------------------- reference (with preemption)


class Ambiguous(Exception):
    """The reference hit a choice DESIGN leaves open (a tie it does not break)."""


@dataclass
class _J:
    i: int
    id: str
    submit: float
    dur: float
    req: np.ndarray
    te: bool
    key: tuple
    status: str = "new"
    node: int = -1
    seg_start: float = 0.0
    kept: float = 0.0
    preemptions: int = 0
    release_at: float = math.inf


def reference_simulate(jobs: JobTable, cluster: ClusterSpec, config: SimConfig) -> list[Event]:
    """An independent, deliberately naive simulation of DESIGN sections 2-4 for every
    policy but `random`. Raises Ambiguous where DESIGN leaves a tie open (the caller
    skips such cases). Capacities must be > 0 in every dimension; times, durations,
    grace, restore and the checkpoint interval should be integers (exact arithmetic)."""
    cfg = config
    assert cfg.policy != "random"
    cap = cluster.capacity_matrix()
    names = cluster.names
    ids = [str(x) for x in jobs.job_id]
    keys = queue_key(ids, jobs.submit_time, jobs.is_te, te_first=cfg.policy != "fifo")
    J = [
        _J(
            i,
            ids[i],
            float(jobs.submit_time[i]),
            float(jobs.duration[i]),
            jobs.request[i],
            bool(jobs.is_te[i]),
            keys[i],
        )
        for i in range(len(ids))
        if (jobs.request[i][None, :] <= cap).all(axis=1).any()
    ]
    free = cap.copy()
    nominations: dict[int, list] = {}  # TE job index -> [node, reservation, set of victim indexes]
    out: list[Event] = []
    by_i = {j.i: j for j in J}

    def restore_of(j: _J) -> float:
        return cfg.restore if j.preemptions > 0 else 0.0

    def attained(j: _J, t: float) -> float:
        return j.kept + max(0.0, t - j.seg_start - restore_of(j))

    def finish_at(j: _J) -> float:
        return j.seg_start + restore_of(j) + (j.dur - j.kept)

    def reserved(n: int, exclude: int | None = None) -> np.ndarray:
        r = np.zeros(3)
        for ti, (m, res, _) in nominations.items():
            if m == n and ti != exclude:
                r = r + res
        return r

    def lost_if_now(j: _J, t: float) -> float:
        a = attained(j, t)
        if cfg.checkpoint == "on_preempt":
            return 0.0
        if cfg.checkpoint == "none":
            return a
        c = cfg.checkpoint_interval
        return a - math.floor(a / c) * c

    def start(j: _J, n: int, t: float) -> None:
        free[n] -= j.req
        j.status, j.node, j.seg_start = "running", n, t
        out.append((t, j.id, "start", names[n]))

    def preempt(v: _J, t: float) -> None:
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

    def release(v: _J, t: float) -> None:
        free[v.node] += v.req
        v.status, v.release_at = "pending", math.inf
        out.append((t, v.id, "release", names[v.node]))
        for ti, (_m, res, vic) in nominations.items():
            if v.i in vic:
                vic.discard(v.i)
                res[:] = np.minimum(by_i[ti].req, res + v.req)

    def share(req: np.ndarray, n: int) -> float:
        return float(np.max(req / cap[n]))

    def victims_on(t_job: _J, n: int, t: float, tie_reverse: bool):
        """(victim list, node-choice key) on node n, or None."""
        avail = free[n] - reserved(n)
        cands = [j for j in J if j.status == "running" and j.node == n and not j.te]

        def fits(vs) -> bool:
            return bool((avail + sum((v.req for v in vs), np.zeros(3)) >= t_job.req).all())

        # ties in the victim order are left open by DESIGN: try both directions of queue order
        rank = {j.i: k for k, j in enumerate(sorted(cands, key=lambda j: j.key))}
        tb = (lambda j: -rank[j.i]) if tie_reverse else (lambda j: rank[j.i])
        if cfg.policy == "k8s":
            if not cands or not fits(cands):
                return None
            vs = list(cands)
            for c in sorted(cands, key=lambda j: (j.seg_start, tb(j))):
                rest = [v for v in vs if v is not c]
                if fits(rest):
                    vs = rest
            return vs, (len(vs), -min(v.seg_start for v in vs), n)
        if cfg.policy == "lrtp":
            order = sorted(cands, key=lambda j: (-(j.dur - attained(j, t)), tb(j)))
            vs = []
            for c in order:
                if fits(vs):
                    break
                vs.append(c)
            if not vs or not fits(vs):
                return None
            for c in list(reversed(vs)):
                rest = [v for v in vs if v is not c]
                if fits(rest):
                    vs = rest
            return vs, (len(vs), -min(v.dur - attained(v, t) for v in vs), n)
        # fitgpp
        st = share(t_job.req, n)
        cands = [c for c in cands if c.preemptions < cfg.P and share(c.req, n) <= cfg.s * st]
        sets = [[c] for c in cands if fits([c])]
        if not sets:
            sets = [[a, b] for k, a in enumerate(cands) for b in cands[k + 1 :] if fits([a, b])]
        if not sets:
            if not (cands and fits(cands)):
                return None
            sets = [greedy(t_job, n, t, avail, cands, fits)]

        def crit(vs):
            slack = float(np.round(np.sum((avail + sum((v.req for v in vs), np.zeros(3)) - t_job.req) / cap[n]), 9))
            lost = round(sum(lost_if_now(v, t) for v in vs), 9)
            return (len(vs), slack, lost, sum(v.preemptions for v in vs), -min(v.seg_start for v in vs))

        sets.sort(key=crit)
        if len(sets) > 1 and crit(sets[0]) == crit(sets[1]):
            raise Ambiguous("fitgpp tie broken by 'job order'")
        return sets[0], crit(sets[0]) + (sorted(v.key for v in sets[0]), n)

    def greedy(t_job: _J, n: int, t: float, avail: np.ndarray, cands: list[_J], fits) -> list[_J]:
        """DESIGN section 4: add the candidate covering most of the remaining normalised
        deficit (rounded to 1e-9); ties by least lost work, fewer past preemptions, latest
        segment start, job order. Then reprieve in reverse order of addition."""
        chosen: list[_J] = []
        while not fits(chosen):
            deficit = np.maximum(t_job.req - avail - sum((v.req for v in chosen), np.zeros(3)), 0.0)

            def key(c: _J, deficit: np.ndarray = deficit) -> tuple:
                cover = round(sum(min(c.req[d], deficit[d]) / cap[n][d] for d in range(3)), 9)
                return (-cover, lost_if_now(c, t), c.preemptions, -c.seg_start, c.key)

            chosen.append(min((c for c in cands if all(c is not v for v in chosen)), key=key))
        for c in list(reversed(chosen)):
            rest = [v for v in chosen if v is not c]
            if fits(rest):
                chosen = rest
        return chosen

    def choose_victims(t_job: _J, t: float):
        if cfg.policy in ("fifo", "priority"):
            return None
        results = []
        for tie_reverse in (False, True):
            best = None
            for n in range(len(cap)):
                r = victims_on(t_job, n, t, tie_reverse)
                if r is not None and (best is None or r[1] < best[1]):
                    best = (r[0], r[1], n)
            results.append(None if best is None else (sorted(v.i for v in best[0]), best[2]))
        if results[0] != results[1]:
            raise Ambiguous(f"{cfg.policy}: victim order tie")
        if results[0] is None:
            return None
        vi, n = results[0]
        return [by_i[i] for i in vi], n

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
        for v in [j for j in J if j.status == "preempting" and j.release_at == t]:
            release(v, t)
        while a < len(arrivals) and arrivals[a].submit == t:
            arrivals[a].status = "pending"
            out.append((t, arrivals[a].id, "submit", ""))
            a += 1
        # the pass
        queue = sorted((j for j in J if j.status == "pending"), key=lambda j: j.key)
        for j in queue:
            if j.status != "pending":
                continue
            nom = nominations.get(j.i)
            if nom is not None:
                m, res, _ = nom
                own = bool((free[m] - reserved(m, exclude=j.i) >= j.req).all())
                others = np.array([k != m for k in range(len(cap))])
                avail = free - np.array([reserved(k, exclude=j.i) for k in range(len(cap))])
                n_other = place(avail, cap, j.req, cfg.placement, mask=others)
                # "placed on its node as soon as it fits there"; another node only otherwise
                if own or n_other >= 0:
                    del nominations[j.i]
                    start(j, m if own else n_other, t)
                continue
            avail = free - np.array([reserved(k) for k in range(len(cap))])
            n = place(avail, cap, j.req, cfg.placement)
            if n >= 0:
                start(j, n, t)
                continue
            chosen = choose_victims(j, t) if j.te else None
            if chosen is not None:
                vs, n = chosen
                res = np.minimum(np.maximum(free[n] - reserved(n), 0.0), j.req)
                nominations[j.i] = [n, res, {v.i for v in vs}]
                for v in vs:
                    preempt(v, t)
                if cfg.grace == 0:
                    for v in vs:
                        release(v, t)
                        v.status = "requeue"  # back in the queue from the next pass on
                    del nominations[j.i]
                    start(j, n, t)
                continue
            if cfg.backfill == "none":
                break
        for j in J:
            if j.status == "requeue":
                j.status = "pending"
    return out


def canonical_decisions(events: list[Event]) -> list[Event]:
    """canonical(), and also the order of several victims' preempt (and in-pass release)
    rows of one decision, which DESIGN leaves open: sort each run of consecutive
    preempt/release rows at one instant by (event, job_id)."""
    ev = canonical(events)
    out: list[Event] = []
    i = 0
    while i < len(ev):
        k = i + 1
        if ev[i][2] in ("preempt", "release"):
            while k < len(ev) and ev[k][0] == ev[i][0] and ev[k][2] in ("preempt", "release"):
                k += 1
            out.extend(sorted(ev[i:k], key=lambda e: (e[2], e[1])))
        else:
            out.append(ev[i])
        i = k
    return out
