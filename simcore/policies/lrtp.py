"""``lrtp``: longest remaining time first, with no cap (a baseline).

Per node: add candidates by longest remaining work until the TE job fits, then reprieve in
reverse order those not needed. Node: fewest victims, then the largest minimum remaining
work, then the lowest index.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.policies.base import Explained, Preemption, PreemptionView, Ranked, Uncapped, best_of, explain_ranked


@dataclass(frozen=True)
class Lrtp(Uncapped):
    name: str = "lrtp"
    preemptive: bool = True
    fifo_order: bool = False
    help: str = (
        "Preempts the BE jobs with the longest remaining work, on the node needing the fewest victims. "
        "It has no cap, so the same long job can be preempted again and again."
    )
    key: tuple[tuple[str, str], ...] = (("victims", "min"), ("min_remaining", "max"))

    def victims(self, view: PreemptionView) -> Preemption | None:
        return best_of(self._per_node(view))

    def explain(self, view: PreemptionView) -> Explained:
        return explain_ranked(self._per_node(view), lambda key: (key[0], -key[1]))

    def _per_node(self, view: PreemptionView) -> Ranked:
        c = view.candidates
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
            yield key, Preemption(k, tuple(sorted(added, key=lambda p: c.rank[p])))


LRTP = Lrtp()
