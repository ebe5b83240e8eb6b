"""``fitgpp``: our reconstruction of the paper's approach (not the paper's exact algorithm).

Yabuuchi, Taniwaki and Omura (arXiv 1902.01613) preempt only BE jobs that can be resumed
without much delay. From the stated principles we choose, on each node, the feasible victim
set that is best by: (1) fewest victims (fewest preemptions); (2) tightest fit, the L1 norm
of the normalised slack left after the TE job takes the victims' place (a victim shaped like
the TE job gets its place back soon: short re-scheduling interval); (3) least work lost if
signalled now; (4) fewer past preemptions, latest earliest start, job order, node index.
Candidates have fewer than ``P`` preemptions and a dominant share at most ``s`` times the
TE job's. 1- and 2-victim sets are searched exactly (1-sets vectorised over all running BE
jobs); only when neither exists is a larger set built greedily, taking first the candidate
that covers most of the remaining deficit and, among equals, the one that costs least by
(3) and (4). Resources are integer units, normalised and rounded as :mod:`simcore.core.units` says.

The search is its per-node rule for the evaluator (:mod:`simcore.policies.evaluator`): the
1-victim sets of every node at once, else on each node its 2-victim sets, else the greedy set.
So, explained (decision records), an option is the best 1-victim set of each node that has
one, or, when no node has, the best larger set of each feasible node. :class:`FitSearch` is
that search, shared with ``fitdelay``, which ranks the sets by other values.

Gangs (DESIGN-gangs points 3-5): a gang is a candidate on each node where its workers run,
holding there its per-worker request x its workers on the node; a set's size counts workers
and its lost work is lost work x workers. A 1-job set is then no longer always the smallest,
so when a gang is among the candidates the search runs node by node over sets of 1 and 2
*jobs* (the best by the full key winning), the greedy set only where none is feasible.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import ClassVar

import numpy as np

from simcore.core import units
from simcore.core.knobs import default
from simcore.policies.base import Cap, PreemptionView, minus, plus, sum_of
from simcore.policies.decision import CAPPED_BY_P, LARGER_THAN_S
from simcore.policies.evaluator import PreemptivePolicy, VictimSet, VictimSets


@dataclass(frozen=True)
class FitSearch(PreemptivePolicy):
    """fitgpp's victim search. A subclass writes its caps and the named values of a set (its key),
    whose first entry is fewest victims (the search relies on it)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.key[0] != ("victims", "min"):
            raise TypeError(f"policy {self.name!r}: a FitSearch ranks by fewest victims first, not {self.key[0]}")

    def all_nodes(self, view: PreemptionView, pos: np.ndarray) -> VictimSets | None:
        """Every feasible 1-victim set, vectorised over all allowed candidates (single-worker
        candidates only: with a gang among them, :meth:`on_node` searches node by node)."""
        c = view.candidates
        if not c.single() and (c.workers[pos] > 1).any():
            return None
        node = c.node[pos]
        total = view.avail[node] + c.req[pos]
        ok = (total >= view.te_req).all(axis=1)
        if view.quota is not None:  # with queues: eligible, and the quota condition met
            ok &= view.quota.singles_ok(pos)
        if not ok.any():
            return None
        pos, node, total = pos[ok], node[ok], total[ok]
        slack = units.norm_round(units.l1(total - view.te_req, view.inv_cap[node]))
        return VictimSets(pos[:, None], node, self._single_values(view, pos, slack), (view.candidates.rank[pos],))

    def on_node(self, view: PreemptionView, k: int, here: list[int]) -> Iterable[VictimSet]:
        """The feasible 1- and 2-job sets on node k with the fewest victims (workers), or when there
        is none the greedy set. (Asked only when no 1-job set is feasible on any node, unless a gang
        is among the candidates.) A set with more victims than another feasible set is never the
        node's best, since "victims" is the first entry of the key (checked in ``__post_init__``), so
        its other values are not computed: the node's best set, all the evaluator keeps, is the same."""
        c = view.candidates
        req, workers = c.column("req"), c.column("workers")
        avail = view.avail_on(k)
        feasible = [s for size in (1, 2) for s in combinations(here, size) if view.fits(_total(avail, req, s))]
        qv = view.quota
        if qv is not None:  # with queues: eligible, and the quota condition met
            feasible = [s for s in feasible if qv.enough(s) and qv.eligible(s)]
        if feasible:
            sizes = [sum(workers[p] for p in s) for s in feasible]
            fewest = min(sizes)
            sets = [s for s, n in zip(feasible, sizes, strict=True) if n == fewest]
        else:
            greedy = self._greedy(view, k, here)
            sets = [greedy] if greedy else []
        rank = c.column("rank")
        for s in sets:
            slack = self._slack(view, k, _total(avail, req, s))
            yield VictimSet(s, self._set_values(view, list(s), slack), (tuple(sorted(rank[p] for p in s)),))

    def _greedy(self, view: PreemptionView, k: int, here: list[int]) -> tuple[int, ...]:
        """Add the candidate covering most of the normalised deficit (ties: least lost work,
        fewer past preemptions, latest segment start, job order); then reprieve in reverse.
        With queues, candidates whose addition would make the set ineligible are skipped, "fits"
        includes the quota condition (only the room counts in the cover), and the set is empty
        when the candidates run out first."""
        c = view.candidates
        total = view.avail[k].copy()
        chosen: list[int] = []
        rest = np.array(here, dtype=np.int64)
        qv = view.quota
        while not (view.fits(total) and (qv is None or qv.enough(chosen))):
            if qv is not None:
                rest = rest[[qv.can_add(chosen, p) for p in rest.tolist()]]
                if not len(rest):
                    return ()
            deficit = np.maximum(view.te_req - total, 0)
            cover = units.norm_round(units.l1(np.minimum(c.req[rest], deficit), view.inv_cap[k]))
            # lexsort: the last key is the primary one; the first entry is the best
            lost = c.lost_scaled()[rest]
            i = np.lexsort((c.rank[rest], -c.seg_start[rest], c.preemptions[rest], lost, -cover))[0]
            chosen.append(int(rest[i]))
            rest = np.delete(rest, i)
            total = total + c.req[chosen[-1]]
        for p in reversed(list(chosen)):
            if view.fits(total - c.req[p]) and (qv is None or qv.enough([x for x in chosen if x != p])):
                total = total - c.req[p]
                chosen.remove(p)
        return tuple(chosen)

    @staticmethod
    def _slack(view: PreemptionView, k: int, total: list[int]) -> float:
        """The tightest-fit measure as an integer count of 1e-9 (exact ties); in Python numbers, the
        same double as the vectorised :meth:`all_nodes` computes."""
        return units.norm_round_one(units.l1_one(minus(total, view.te_units), view.inv_cap_on(k)))

    # -- what a subclass writes: the named values of its key -------------------------------
    def _single_values(self, view: PreemptionView, pos: np.ndarray, slack: np.ndarray) -> tuple[np.ndarray, ...]:
        """The key's values of the 1-victim sets `pos`, as columns (`slack` as :meth:`_slack` keeps it)."""
        raise NotImplementedError

    def _set_values(self, view: PreemptionView, idx: list[int], slack: float) -> tuple:
        """The key's values of one set of victims `idx`."""
        raise NotImplementedError


def _total(avail: list[int], req: list[list[int]], victims: tuple[int, ...]) -> list[int]:
    """Units on a node once `victims` are gone (Python integers: exact)."""
    total = avail
    for p in victims:
        total = plus(total, req[p])
    return total


def share_cap(view: PreemptionView, s: float) -> tuple[Cap, ...]:
    """The ``s`` cap: candidates whose dominant share is at most `s` times the TE job's (both rounded
    to 1e-9). Left out with s = inf: a cap that keeps everyone is never the reason, and its mask would cost
    a numpy call per search (most searches of a run with few BE jobs end at the caps)."""
    if math.isinf(s):
        return ()
    c = view.candidates
    inv = view.inv_cap[c.node]
    te_share = (view.te_req * inv).max(axis=1)  # a gang's per-worker request against the TE job's
    return ((LARGER_THAN_S, units.norm_round((c.unit_req * inv).max(axis=1)) <= units.norm_round(s * te_share)),)


def fitgpp_caps(view: PreemptionView, P: int, s: float) -> tuple[Cap, ...]:
    """fitgpp's caps: fewer than ``P`` preemptions, share at most ``s`` x the TE job's; in the order
    reasons are told."""
    return ((CAPPED_BY_P, view.candidates.preemptions < P), *share_cap(view, s))


@dataclass(frozen=True)
class FitGpp(FitSearch):
    P: int = default("P")  # max preemptions of a victim
    s: float = default("s")  # a victim's dominant share at most s x the TE job's (inf: no cap)

    name: ClassVar[str] = "fitgpp"
    help: ClassVar[str] = (
        "Our reconstruction of the paper's approach: preempt the fewest BE jobs whose place fits the TE job "
        "most tightly, losing the least work, and never a job already preempted P times (or larger than s x "
        "the TE job). Preempted jobs then get their place back as soon as the short TE job ends."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (
        ("victims", "min"),
        ("slack", "min"),
        ("lost_work", "min"),
        ("past_preemptions", "min"),
        ("earliest_start", "max"),
    )

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        return fitgpp_caps(view, self.P, self.s)

    def _single_values(self, view: PreemptionView, pos: np.ndarray, slack: np.ndarray) -> tuple[np.ndarray, ...]:
        c = view.candidates
        return c.workers[pos], slack / units.NORM_SCALE, c.lost_scaled()[pos], c.preemptions[pos], c.seg_start[pos]

    def _set_values(self, view: PreemptionView, idx: list[int], slack: float) -> tuple:
        c = view.candidates  # read as Python lists: sets of one or two jobs, numpy calls cost more
        lost, workers = c.column("lost_now"), c.column("workers")
        past, start = c.column("preemptions"), c.column("seg_start")
        return (
            c.size(idx),
            slack / units.NORM_SCALE,
            sum_of([lost[p] * workers[p] for p in idx]),  # lost_scaled: the same products
            sum(past[p] for p in idx),
            min(start[p] for p in idx),
        )


FITGPP = FitGpp()
