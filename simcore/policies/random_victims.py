"""``random``: a uniformly random feasible node, then random victims until the TE job fits.

Its key is ``drawn``: the evaluator draws the node from the run's generator (seeded from
``seed``, drawn from only when some node is feasible, so runs are reproducible) and asks only
that node. Explained, every feasible node is an option whose key is the draw that picks it
(its position among the feasible nodes); the drawn node comes first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from simcore.policies.base import PreemptionView, plus
from simcore.policies.evaluator import PreemptivePolicy, VictimSet


@dataclass(frozen=True)
class RandomVictims(PreemptivePolicy):
    name: ClassVar[str] = "random"
    help: ClassVar[str] = (
        "Picks a feasible node at random and preempts its BE jobs in random order until the TE job fits. "
        "A baseline for how much the choice of victims matters."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (("draw", "drawn"),)

    def on_node(self, view: PreemptionView, k: int, here: list[int]) -> Iterable[VictimSet]:
        """Shuffle the node's candidates and take them until the TE job fits (no reprieve). With queues a
        candidate whose addition would make the set ineligible is skipped, "fits" includes the quota
        condition, and no set comes out when the additions end without a fit."""
        req = view.candidates.column("req")
        total = view.avail_on(k)
        qv = view.quota
        need = 0 if qv is None else qv.short()
        freed = 0
        chosen: list[int] = []
        for i in view.rng.permutation(len(here)).tolist():
            if view.fits(total) and freed >= need:
                break
            p = here[i]
            if qv is not None:
                if not qv.can_add(chosen, p):
                    continue
                freed += qv.own_gpus(p)
            chosen.append(p)
            total = plus(total, req[p])
        if qv is not None and not (view.fits(total) and freed >= need):
            return ()
        return (VictimSet(chosen, ()),)


RANDOM = RandomVictims()
