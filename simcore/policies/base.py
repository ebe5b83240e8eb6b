"""What a policy sees and returns.

A policy is a queue order (DESIGN.md rule 2) plus a victim rule. It gets a read-only
:class:`PreemptionView` of the cluster when a TE job fits nowhere, and returns a
:class:`Preemption` (one node, the running BE jobs to signal) or ``None``. The engine
owns every mechanism: grace, reservation, checkpoint, restore. Asked to explain
(decision records), it returns the same choice plus every node it weighed as a
:class:`NodeOption`, best first, with the named values of its ordering key (``Policy.key``).
The evaluator (:mod:`simcore.policies.evaluator`) does this for every preemptive policy.
Resources are integer units (:mod:`simcore.core.units`), so "fits" is exact; normalised
quantities multiply an integer difference by ``inv_cap``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from simcore.core.model import SimConfig

_NDARRAY = np.ndarray  # one global read in fits()


@dataclass(frozen=True, eq=False)
class Candidates:
    """Running (not preempting) BE jobs, sorted by job order: one entry per job and node it holds.

    A single-worker job has one entry. A gang (DESIGN-gangs point 3) has one entry per node
    where its workers run, whose ``req`` is what it holds there (per-worker request x its
    workers on that node); every other value is the job's. With ``min_runtime`` > 0 only the
    jobs whose current segment has lasted that long."""

    job: np.ndarray  # job index in the engine
    node: np.ndarray
    req: np.ndarray  # (m x 3) integer units
    seg_start: np.ndarray  # start of the current run segment
    remaining: np.ndarray  # run time still needed if signalled now (progress kept)
    lost_now: np.ndarray  # work that a signal now would lose (checkpoint mode; an on_preempt save that surely fails)
    expected_loss: np.ndarray  # lost_now, or with on_preempt P(save fails) x work since the last successful save
    preemptions: np.ndarray
    rank: np.ndarray  # job order: submit time, then job_id
    # checkpoint-aware information (nothing about the checkpoint rule itself changes)
    last_checkpoint: np.ndarray  # time the work a signal now would keep was saved (NaN: nothing saved yet)
    restore_next: np.ndarray  # restore it would pay on its next start (every start after a preemption pays it)
    # None given: filled in by __post_init__ (all 1; ``req``)
    workers: np.ndarray = None  # type: ignore[assignment]  # the job's workers: a victim set's size counts them
    unit_req: np.ndarray = None  # type: ignore[assignment]  # (m x 3) the per-worker request
    #: when each job finishes unless stopped (restore and checkpoint pauses included): given by a run
    #: with down time or checkpoint_cost (DESIGN rule 12), else None (fitdelay then sums it itself)
    finish_at: np.ndarray | None = None

    def __post_init__(self) -> None:
        # caches, not fields (:meth:`take` copies fields only): made once, not on every read
        self.__dict__["_columns"] = {}
        if self.workers is None:
            object.__setattr__(self, "workers", np.ones(len(self.job), dtype=np.int64))
            self.__dict__["_single"] = True  # known without looking (a run without gangs gives None)
        if self.unit_req is None:
            object.__setattr__(self, "unit_req", self.req)

    def take(self, pos: np.ndarray) -> Candidates:
        """The entries at positions `pos`, in that order."""
        rows: dict[str, Any] = {}  # finish_at may be None
        for f in fields(self):
            col = getattr(self, f.name)
            rows[f.name] = None if col is None else col[pos]
        return Candidates(**rows)

    def size(self, pos: Sequence[int]) -> int:
        """Workers stopped by signalling the jobs of entries `pos` (one entry per job)."""
        if self.single():  # the per-node rules ask this for every node they weigh
            return len(pos)
        workers = self.column("workers")
        return sum(workers[p] for p in pos)

    def single(self) -> bool:
        """Is every entry a single-worker job (no gang among the candidates)? Computed once (a plain
        cache: ``cached_property`` takes a lock on every first read in Python 3.11)."""
        single = self.__dict__.get("_single")
        if single is None:
            single = self.__dict__["_single"] = not (self.workers > 1).any()
        return single

    def column(self, name: str) -> list:
        """Column `name` as a Python list (``req``: a list of integer units per entry), built once.
        Per-candidate loops index these lists: several times cheaper than numpy scalars, and
        exact (integers stay integers, floats are the same doubles)."""
        cache = self.__dict__["_columns"]
        col = cache.get(name)
        if col is None:
            col = cache[name] = getattr(self, name).tolist()
        return col

    def lost_scaled(self) -> np.ndarray:
        """Per entry, the work a signal now would lose x the job's workers (DESIGN-gangs point 4);
        computed once (victim searches ask for it per set)."""
        if "_lost_scaled" not in self.__dict__:
            self.__dict__["_lost_scaled"] = self.lost_now * self.workers  # not a field: see :meth:`column`
        return self.__dict__["_lost_scaled"]

    def __len__(self) -> int:
        return len(self.job)

    def on_node(self, k: int) -> np.ndarray:
        """Positions (into these arrays) of the candidates on node k, in job order."""
        return np.flatnonzero(self.node == k)


@dataclass(frozen=True, eq=False)
class QuotaView:
    """Queues in a victim search (DESIGN-queues points 6 and 9): each candidate's queue and GPUs (its
    job's: request x workers, in GPU units), the running GPUs R and the quota of every queue, and
    the quota GPUs the preemptor lacks (``missing``: > 0 only when it fails the quota condition;
    its own queue's victims, which lower its usage, must then free at least that many).

    A set is **eligible** when every other queue p it takes victims from stays over quota after
    removing all of p's victims in the set but the largest (Kueue: each victim is taken while its
    queue still borrows): R(p) - (GPUs of p's victims) + (GPUs of p's largest victim) > quota(p).
    For a gang the victims chosen for its earlier workers (``prior``) count in these sums and in
    what its own queue's victims free. Victims of the preemptor's own queue are never subject to
    eligibility. A subset of an eligible set is eligible (removing a victim never lowers the left
    side), so a reprieve never makes a set ineligible."""

    queues: np.ndarray  # per candidate entry: its job's queue (as a list: :attr:`queue`)
    owns: np.ndarray  # per entry: of the preemptor's queue, a TE-first candidate (:attr:`own`)
    gpus_units: np.ndarray  # per entry: its job's GPUs (units; a gang's every worker) (:attr:`gpus`)
    running: list[int]  # per queue: R, the GPUs of its running (not preempting) jobs (units)
    quota: list[int]  # per queue: its quota (units; inf as a number above every sum)
    missing: int = 0  # quota GPUs the preemptor lacks (units): its own victims must free as many
    #: per queue p: (GPUs, largest) of the victims chosen for a gang's earlier workers in other queues
    prior: dict[int, tuple[int, int]] = field(default_factory=dict)
    prior_freed: int = 0  # GPUs the earlier workers' victims of its own queue free

    # the columns as Python lists for the searches' loops (an item of a list costs less than of an array),
    # made on first use: a search that only asks singles_ok never needs them
    @cached_property
    def queue(self) -> list[int]:
        return self.queues.tolist()

    @cached_property
    def own(self) -> list[bool]:
        return self.owns.tolist()

    @cached_property
    def gpus(self) -> list[int]:
        return self.gpus_units.tolist()

    @cached_property
    def all_own(self) -> bool:
        """Is every candidate of the preemptor's own queue (no eligibility to check)?"""
        return bool(self.owns.all())

    def eligible(self, victims: Iterable[int]) -> bool:
        """Is the set of candidate entries `victims` eligible (with the earlier workers' victims)?"""
        sums: dict[int, list[int]] = {}
        own, queue, gpus = self.own, self.queue, self.gpus
        for p in victims:
            if own[p]:
                continue
            s = sums.get(queue[p])
            if s is None:
                total, big = self.prior.get(queue[p], (0, 0))
                s = sums[queue[p]] = [total, big]
            g = gpus[p]
            s[0] += g
            if g > s[1]:
                s[1] = g
        return all(self.running[q] - total + big > self.quota[q] for q, (total, big) in sums.items())

    def can_add(self, victims: Sequence[int], p: int) -> bool:
        """Does adding entry `p` to the (eligible) set `victims` keep it eligible?"""
        return self.own[p] or self.eligible([*victims, p])

    def frees(self, victims: Iterable[int]) -> int:
        """Quota GPUs the set frees for the preemptor: its own queue's victims' GPUs (units)."""
        own, gpus = self.own, self.gpus
        return sum(gpus[p] for p in victims if own[p])

    def enough(self, victims: Iterable[int]) -> bool:
        """Does the set satisfy the quota condition (its own queue's victims free what it lacks)?"""
        return self.missing <= 0 or self.prior_freed + self.frees(victims) >= self.missing

    def short(self) -> int:
        """What the set still has to free for the quota condition, before any victim (units, >= 0)."""
        return max(0, self.missing - self.prior_freed)

    def own_gpus(self, p: int) -> int:
        """What entry `p` frees for the quota condition: its GPUs if it is of the preemptor's queue."""
        return self.gpus[p] if self.own[p] else 0

    def singles_ok(self, pos: np.ndarray) -> np.ndarray:
        """Per entry of `pos`, is it alone an eligible set that satisfies the quota condition? (Vectorised
        for fitgpp's 1-victim sets: a single victim of another queue is eligible when its queue is over
        quota once the earlier workers' victims are out.)"""
        if self.all_own and self.short() <= 0:
            return np.ones(len(pos), dtype=bool)
        queue, gpus, own = self.queues[pos], self.gpus_units[pos], self.owns[pos]
        left = np.asarray(self.running, dtype=np.int64)[queue]
        if self.prior:  # (without: R - gpus + max(gpus, 0) is R)
            prior = np.array([self.prior.get(q, (0, 0)) for q in queue.tolist()], dtype=np.int64).reshape(-1, 2)
            left = left - prior[:, 0] - gpus + np.maximum(gpus, prior[:, 1])
        ok = own | (left > np.asarray(self.quota, dtype=np.int64)[queue])
        if self.short() > 0:
            ok &= own & (gpus >= self.short())
        return ok


@dataclass(frozen=True, eq=False)
class PreemptionView:
    now: float
    te_req: np.ndarray  # integer units
    cap: np.ndarray  # read-only, integer units
    inv_cap: np.ndarray  # read-only: 1/capacity per unit, 0 where capacity is 0
    avail: np.ndarray  # read-only, integer units: free minus other TE jobs' reservations
    candidates: Candidates
    config: SimConfig
    rng: np.random.Generator  # the run's generator (seeded from config.seed)
    #: every running BE job, victim candidate or not (``min_runtime`` exempts some, queues leave some out);
    #: None: the candidates; or a function that makes them (few policies read them: made on first use)
    running: Candidates | Callable[[], Candidates] | None = None
    #: a run with queues: the candidates' queues, eligibility and the quota condition; None: no queues
    quota: QuotaView | None = None

    @cached_property
    def running_be(self) -> Candidates:
        """Every running BE job (not preempting), in job order: the candidates and those ``min_runtime`` exempts."""
        r = self.running
        if r is None:
            return self.candidates
        return r if isinstance(r, Candidates) else r()

    def fits(self, total: np.ndarray | list[int]) -> bool:
        """Does the TE job fit in `total` resources (rule 4)? Compared as Python integers: exact, and
        for three numbers several times faster than numpy (policies ask this in their inner loops)."""
        a = total.tolist() if type(total) is _NDARRAY else total  # not isinstance: the hottest call of a search
        b = self.te_units
        return a[0] >= b[0] and a[1] >= b[1] and a[2] >= b[2]  # cpu, mem, gpu

    def avail_on(self, k: int) -> list[int]:
        """Node k's available units as Python integers (see :meth:`Candidates.column`)."""
        return self._avail_units[k]

    def inv_cap_on(self, k: int) -> list[float]:
        """Node k's 1/capacity per unit as Python floats (the same doubles)."""
        return self._inv_cap_rows[k]

    @cached_property
    def _avail_units(self) -> list[list[int]]:
        return self.avail.tolist()

    @cached_property
    def _inv_cap_rows(self) -> list[list[float]]:
        return self.inv_cap.tolist()

    @cached_property
    def te_units(self) -> list[int]:
        """The TE job's request as Python integers (see :meth:`Candidates.column`)."""
        return self.te_req.tolist()


def plus(total: list[int], req: list[int]) -> list[int]:
    """Units `total` with `req` added (Python integers: exact)."""
    return [total[0] + req[0], total[1] + req[1], total[2] + req[2]]


def minus(total: list[int], req: list[int]) -> list[int]:
    """Units `total` with `req` taken away (Python integers: exact)."""
    return [total[0] - req[0], total[1] - req[1], total[2] - req[2]]


def add_until_fits(view: PreemptionView, k: int, order: Iterable[int]) -> tuple[list[int], list[int], int] | None:
    """Add the candidate entries of `order` to a set until the job fits on node k: (the set, the units
    on k with it gone, the quota GPUs its own-queue victims free). With queues an entry whose addition
    would make the set ineligible is skipped, "fits" includes the quota condition, and the result is
    None when `order` runs out first (never without queues: the node is searched only when removing
    every candidate makes room)."""
    req, qv = view.candidates.column("req"), view.quota
    need = 0 if qv is None else qv.short()
    total, freed = view.avail_on(k), 0
    chosen: list[int] = []
    for p in order:
        if view.fits(total) and freed >= need:
            break
        if qv is not None:
            if not qv.can_add(chosen, p):
                continue
            freed += qv.own_gpus(p)
        chosen.append(p)
        total = plus(total, req[p])
    if qv is not None and not (view.fits(total) and freed >= need):
        return None
    return chosen, total, freed


def sum_of(values: list[float]) -> float:
    """``np.sum(values)`` as a Python float, the same double. One or two terms are added in Python as numpy
    adds them, from 0.0 (so -0.0 sums to 0.0): a numpy call costs more than the sum. More go through numpy,
    whose summation order (pairwise from 8 terms) decision records have always shown."""
    if len(values) == 1:
        return 0.0 + values[0]
    if len(values) == 2:
        return 0.0 + values[0] + values[1]
    return float(np.sum(values))


@dataclass(frozen=True)
class Preemption:
    node: int
    victims: tuple[int, ...]  # positions into view.candidates


@dataclass(frozen=True)
class NodeOption:
    """One node a policy weighed: the victim set it would take there and its ordering key, named."""

    node: int
    victims: tuple[int, ...]  # positions into view.candidates, in signal order
    values: tuple[float, ...]  # one per entry of Policy.key, in that order


@dataclass(frozen=True)
class Explained:
    """A policy's choice (the same as ``victims`` returns) and the nodes it weighed, best first."""

    preemption: Preemption | None
    options: tuple[NodeOption, ...]


#: a cap on candidates: the reason recorded when it leaves none, and the mask of those it keeps (a cap
#: that keeps everyone in a view may be left out of the policy's caps: it is never the reason)
Cap = tuple[str, np.ndarray]


class Policy(Protocol):
    """What the engine sees of a policy. Preemptive ones are plugins of the evaluator
    (:class:`simcore.policies.evaluator.PreemptivePolicy`), which implements ``victims`` and ``explain``."""

    # read-only members: policies are frozen dataclasses
    @property
    def name(self) -> str: ...

    @property
    def preemptive(self) -> bool: ...

    @property
    def fifo_order(self) -> bool:  # queue by submit time only (else TE first)
        ...

    @property
    def help(self) -> str: ...

    @property
    def key(self) -> tuple[tuple[str, str], ...]:
        """The named values of its node order, each with "min" or "max" (which is better), or "drawn"."""
        ...

    def victims(self, view: PreemptionView) -> Preemption | None: ...

    def explain(self, view: PreemptionView) -> Explained: ...

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]: ...
