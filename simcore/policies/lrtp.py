"""``lrtp``: longest remaining time first, with no cap (a baseline).

Per node: add candidates by longest remaining work until the TE job fits, then reprieve in
reverse order those not needed. Node: fewest victims, then the largest minimum remaining
work, then the lowest index.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.policies.base import Preemption, PreemptionView


@dataclass(frozen=True)
class Lrtp:
    name: str = "lrtp"
    preemptive: bool = True
    fifo_order: bool = False
    help: str = (
        "Preempts the BE jobs with the longest remaining work, on the node needing the fewest victims. "
        "It has no cap, so the same long job can be preempted again and again."
    )

    def victims(self, view: PreemptionView) -> Preemption | None:
        c = view.candidates
        best: tuple | None = None
        for k in view.nodes_feasible_without_all():
            pos = sorted(c.on_node(k).tolist(), key=lambda p: (-c.remaining[p], c.rank[p]))
            total = view.avail[k].copy()
            added: list[int] = []
            for p in pos:
                if view.fits(total):
                    break
                added.append(p)
                total = total + c.req[p]
            for p in reversed(list(added)):
                if view.fits(total - c.req[p]):
                    total = total - c.req[p]
                    added.remove(p)
            key = (len(added), -min(float(c.remaining[p]) for p in added), k)
            if best is None or key < best[0]:
                best = (key, Preemption(k, tuple(sorted(added, key=lambda p: c.rank[p]))))
        return None if best is None else best[1]


LRTP = Lrtp()
