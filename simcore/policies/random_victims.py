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

from simcore.policies.base import PreemptionView, add_until_fits
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
        found = add_until_fits(view, k, [here[i] for i in view.rng.permutation(len(here)).tolist()])
        return () if found is None else (VictimSet(found[0], ()),)


RANDOM = RandomVictims()
