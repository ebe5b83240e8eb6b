"""``lrtp``: longest remaining time first, with no cap (a baseline).

Per node: add candidates by longest remaining work until the TE job fits, then reprieve in
reverse order those not needed. Node: fewest victims (workers stopped), then the largest minimum remaining
work, then the lowest index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from simcore.policies.base import PreemptionView, add_until_fits, minus
from simcore.policies.evaluator import PreemptivePolicy, VictimSet, size_and_least


@dataclass(frozen=True)
class Lrtp(PreemptivePolicy):
    name: ClassVar[str] = "lrtp"
    help: ClassVar[str] = (
        "Preempts the BE jobs with the longest remaining work, on the node needing the fewest victims. "
        "It has no cap, so the same long job can be preempted again and again."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (("victims", "min"), ("min_remaining", "max"))

    def on_node(self, view: PreemptionView, k: int, here: list[int]) -> Iterable[VictimSet]:
        added = here if len(here) == 1 else self._added(view, k, here)
        return (size_and_least(view, added, "remaining"),) if added else ()

    @staticmethod
    def _added(view: PreemptionView, k: int, here: list[int]) -> list[int]:
        """Add from `here` by longest remaining work until the TE job fits, then reprieve in reverse those
        not needed. With queues an addition that would make the set ineligible is skipped, "fits" includes
        the quota condition, and the set is empty when the additions end without a fit. (A lone job is
        always added and kept: the TE job fits on no node as things are, the evaluator's contract.)"""
        req, remaining = view.candidates.column("req"), view.candidates.column("remaining")
        qv = view.quota
        need = 0 if qv is None else qv.short()
        # `here` is in job order and a reverse sort is stable: longest remaining first, ties by rank
        found = add_until_fits(view, k, sorted(here, key=remaining.__getitem__, reverse=True))
        if found is None:
            return []
        added, total, freed = found
        for p in added[::-1]:  # a copy: the loop removes from `added`
            rest = minus(total, req[p])
            if view.fits(rest) and (qv is None or freed - qv.own_gpus(p) >= need):
                total = rest
                added.remove(p)
                if qv is not None:
                    freed -= qv.own_gpus(p)
        return added


LRTP = Lrtp()
