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
(3) and (4). Resources are integer units, normalised and rounded as :mod:`simcore.units` says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from simcore import units
from simcore.policies.base import Preemption, PreemptionView


@dataclass(frozen=True)
class FitGpp:
    name: str = "fitgpp"
    preemptive: bool = True
    fifo_order: bool = False
    knobs: tuple[str, ...] = ("P", "s")  # its own knobs (the mechanics knobs are everyone's)
    help: str = (
        "Our reconstruction of the paper's approach: preempt the fewest BE jobs whose place fits the TE job "
        "most tightly, losing the least work, and never a job already preempted P times (or larger than s x "
        "the TE job). Preempted jobs then get their place back as soon as the short TE job ends."
    )

    def victims(self, view: PreemptionView) -> Preemption | None:
        if len(view.candidates) == 0:
            return None
        pos = np.flatnonzero(self._eligible(view))
        if len(pos) == 0:
            return None
        return self._one(view, pos) or self._larger(view, pos)

    def _eligible(self, view: PreemptionView) -> np.ndarray:
        """The candidates under the caps: fewer than ``P`` preemptions, share at most ``s`` x the TE job's."""
        return (view.candidates.preemptions < view.config.P) & self._within_share(view)

    @staticmethod
    def _within_share(view: PreemptionView) -> np.ndarray:
        """Candidates whose dominant share is at most ``s`` times the TE job's (both rounded to 1e-9)."""
        c = view.candidates
        if math.isinf(view.config.s):
            return np.ones(len(c), dtype=bool)
        inv = view.inv_cap[c.node]
        te_share = (view.te_req * inv).max(axis=1)
        return units.norm_round((c.req * inv).max(axis=1)) <= units.norm_round(view.config.s * te_share)

    def _slack(self, view: PreemptionView, k: int, total: np.ndarray) -> float:
        return float(units.norm_round(units.l1(total - view.te_req, view.inv_cap[k])))

    def _one(self, view: PreemptionView, pos: np.ndarray) -> Preemption | None:
        c = view.candidates
        node = c.node[pos]
        total = view.avail[node] + c.req[pos]
        ok = (total >= view.te_req).all(axis=1)
        if not ok.any():
            return None
        pos, node, total = pos[ok], node[ok], total[ok]
        slack = units.norm_round(units.l1(total - view.te_req, view.inv_cap[node]))
        order = np.lexsort((node, c.rank[pos], -c.seg_start[pos], c.preemptions[pos], c.lost_now[pos], slack))
        best = int(pos[order[0]])
        return Preemption(int(c.node[best]), (best,))

    def _larger(self, view: PreemptionView, pos: np.ndarray) -> Preemption | None:
        c = view.candidates
        best: tuple | None = None
        for k in view.nodes_feasible_without_all(pos):
            here = [int(p) for p in pos if c.node[p] == k]
            sets = [s for s in combinations(here, 2) if view.fits(view.avail[k] + c.req[list(s)].sum(axis=0))]
            if not sets:
                sets = [self._greedy(view, k, here)]
            for s in sets:
                key = self._key(view, k, s)
                if best is None or key < best[0]:
                    best = (key, Preemption(k, tuple(sorted(s, key=lambda p: c.rank[p]))))
        return None if best is None else best[1]

    def _greedy(self, view: PreemptionView, k: int, here: list[int]) -> tuple[int, ...]:
        """Add the candidate covering most of the normalised deficit (ties: least lost work,
        fewer past preemptions, latest segment start, job order); then reprieve in reverse."""
        c = view.candidates
        total = view.avail[k].copy()
        chosen: list[int] = []
        rest = np.array(here, dtype=np.int64)
        while not view.fits(total):
            deficit = np.maximum(view.te_req - total, 0)
            cover = units.norm_round(units.l1(np.minimum(c.req[rest], deficit), view.inv_cap[k]))
            # lexsort: the last key is the primary one; the first entry is the best
            i = np.lexsort((c.rank[rest], -c.seg_start[rest], c.preemptions[rest], c.lost_now[rest], -cover))[0]
            chosen.append(int(rest[i]))
            rest = np.delete(rest, i)
            total = total + c.req[chosen[-1]]
        for p in reversed(list(chosen)):
            if view.fits(total - c.req[p]):
                total = total - c.req[p]
                chosen.remove(p)
        return tuple(chosen)

    def _key(self, view: PreemptionView, k: int, s: tuple[int, ...]) -> tuple:
        c = view.candidates
        idx = list(s)
        total = view.avail[k] + c.req[idx].sum(axis=0)
        return (
            len(s),
            self._slack(view, k, total),
            float(c.lost_now[idx].sum()),
            int(c.preemptions[idx].sum()),
            -float(c.seg_start[idx].min()),
            tuple(sorted(int(c.rank[p]) for p in s)),
            k,
        )


FITGPP = FitGpp()
