"""``random``: a uniformly random feasible node, then random victims until the TE job fits.

The generator is the run's, seeded from ``seed``, and is drawn from only when some node
is feasible, so runs are reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.policies.base import Preemption, PreemptionView


@dataclass(frozen=True)
class RandomVictims:
    name: str = "random"
    preemptive: bool = True
    fifo_order: bool = False
    help: str = (
        "Picks a feasible node at random and preempts its BE jobs in random order until the TE job fits. "
        "A baseline for how much the choice of victims matters."
    )

    def victims(self, view: PreemptionView) -> Preemption | None:
        feasible = view.nodes_feasible_without_all()
        if not feasible:
            return None
        c = view.candidates
        k = feasible[int(view.rng.integers(len(feasible)))]
        pos = c.on_node(k)
        total = view.avail[k].copy()
        chosen: list[int] = []
        for i in view.rng.permutation(len(pos)):
            if view.fits(total):
                break
            p = int(pos[i])
            chosen.append(p)
            total = total + c.req[p]
        return Preemption(k, tuple(sorted(chosen, key=lambda p: c.rank[p])))


RANDOM = RandomVictims()
