"""``random``: a uniformly random feasible node, then random victims until the TE job fits.

The generator is the run's, seeded from ``seed``, and is drawn from only when some node
is feasible, so runs are reproducible. Explained, every feasible node is an option whose key
is the draw that picks it (its position among the feasible nodes); the drawn node comes first.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.policies.base import Explained, NodeOption, Preemption, PreemptionView, Uncapped


@dataclass(frozen=True)
class RandomVictims(Uncapped):
    name: str = "random"
    preemptive: bool = True
    fifo_order: bool = False
    help: str = (
        "Picks a feasible node at random and preempts its BE jobs in random order until the TE job fits. "
        "A baseline for how much the choice of victims matters."
    )
    key: tuple[tuple[str, str], ...] = (("draw", "drawn"),)

    def victims(self, view: PreemptionView) -> Preemption | None:
        feasible = view.nodes_feasible_without_all()
        return self._draw(view, feasible)[1] if feasible else None

    def explain(self, view: PreemptionView) -> Explained:
        feasible = view.nodes_feasible_without_all()
        if not feasible:
            return Explained(None, ())
        d, pre = self._draw(view, feasible)
        others = [NodeOption(k, (), (i,)) for i, k in enumerate(feasible) if i != d]
        return Explained(pre, (NodeOption(pre.node, pre.victims, (d,)), *others))

    def _draw(self, view: PreemptionView, feasible: list[int]) -> tuple[int, Preemption]:
        """The draw among the feasible nodes, and the victims the shuffle of that node's candidates gives."""
        c = view.candidates
        d = int(view.rng.integers(len(feasible)))
        k = feasible[d]
        pos = c.on_node(k)
        total = view.avail[k].copy()
        chosen: list[int] = []
        for i in view.rng.permutation(len(pos)):
            if view.fits(total):
                break
            p = int(pos[i])
            chosen.append(p)
            total = total + c.req[p]
        return d, Preemption(k, tuple(sorted(chosen, key=lambda p: c.rank[p])))


RANDOM = RandomVictims()
