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

Explained (decision records), an option is the best set on one node by that order: the best
1-victim set of each node that has one, or, when no node has, the best larger set of each
feasible node; the first option is the chosen one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce
from itertools import combinations

import numpy as np

from simcore import units
from simcore.policies.base import (
    Cap,
    Explained,
    NodeOption,
    Preemption,
    PreemptionView,
    Ranked,
    best_of,
    explain_ranked,
)
from simcore.policies.decision import CAPPED_BY_P, LARGER_THAN_S


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
    key: tuple[tuple[str, str], ...] = (
        ("victims", "min"), ("slack", "min"), ("lost_work", "min"), ("past_preemptions", "min"), ("earliest_start", "max"),
    )  # fmt: skip

    def victims(self, view: PreemptionView) -> Preemption | None:
        pos = self._eligible_positions(view)
        if pos is None:
            return None
        ones = self._ones(view, pos)
        if ones is None:
            return best_of(self._larger(view, pos))
        best = int(ones[0][ones[1][0]])
        return Preemption(int(view.candidates.node[best]), (best,))

    def explain(self, view: PreemptionView) -> Explained:
        pos = self._eligible_positions(view)
        if pos is None:
            return Explained(None, ())
        ones = self._ones(view, pos)
        if ones is None:
            return explain_ranked(self._larger(view, pos), self._named)
        at, order, columns = ones
        nodes = view.candidates.node[at[order]]
        firsts = np.sort(np.unique(nodes, return_index=True)[1])  # each node's best, in the policy's order
        rows = tuple(
            NodeOption(int(nodes[i]), (int(at[order[i]]),), (1, *(self._value(name, col[order[i]]) for name, col in columns)))
            for i in firsts.tolist()
        )
        return Explained(Preemption(rows[0].node, rows[0].victims), rows)

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        """Fewer than ``P`` preemptions, share at most ``s`` x the TE job's; in the order reasons are told."""
        return ((CAPPED_BY_P, view.candidates.preemptions < view.config.P), (LARGER_THAN_S, self._within_share(view)))

    def _eligible_positions(self, view: PreemptionView) -> np.ndarray | None:
        if len(view.candidates) == 0:
            return None
        pos = np.flatnonzero(reduce(np.logical_and, (mask for _, mask in self.caps(view))))
        return pos if len(pos) else None

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

    def _ones(self, view: PreemptionView, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, list] | None:
        """The feasible 1-victim sets: their positions, their order (best first) and the arrays of
        the named key's values after ``victims``, or None when there is none."""
        c = view.candidates
        node = c.node[pos]
        total = view.avail[node] + c.req[pos]
        ok = (total >= view.te_req).all(axis=1)
        if not ok.any():
            return None
        pos, node, total = pos[ok], node[ok], total[ok]
        slack = units.norm_round(units.l1(total - view.te_req, view.inv_cap[node]))
        lost, past, start = c.lost_now[pos], c.preemptions[pos], c.seg_start[pos]
        order = np.lexsort((node, c.rank[pos], -start, past, lost, slack))
        return pos, order, [("slack", slack), ("lost_work", lost), ("past_preemptions", past), ("earliest_start", start)]

    @staticmethod
    def _value(name: str, x: float) -> float:
        """A key value as recorded: the slack back from its 1e-9 integer, counts as ints."""
        if name == "slack":
            return float(x) / units.NORM_SCALE
        return int(x) if name == "past_preemptions" else float(x)

    def _named(self, key: tuple) -> tuple[float, ...]:
        """The named values of a `_key` (its tie-breaks, job order and node, left out)."""
        return (key[0], self._value("slack", key[1]), key[2], key[3], -key[4])

    def _larger(self, view: PreemptionView, pos: np.ndarray) -> Ranked:
        """Each feasible node's best set of two or more victims."""
        c = view.candidates
        for k in view.nodes_feasible_without_all(pos):
            here = [int(p) for p in pos if c.node[p] == k]
            sets = [s for s in combinations(here, 2) if view.fits(view.avail[k] + c.req[list(s)].sum(axis=0))]
            if not sets:
                sets = [self._greedy(view, k, here)]
            key, s = min((self._key(view, k, s), s) for s in sets)
            yield key, Preemption(k, tuple(sorted(s, key=lambda p: c.rank[p])))

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
