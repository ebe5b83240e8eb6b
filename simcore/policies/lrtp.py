"""``lrtp``: longest remaining time first, with no cap (a baseline).

Per node: add candidates by longest remaining work until the TE job fits, then reprieve in
reverse order those not needed. Node: fewest victims (workers stopped), then the largest minimum remaining
work, then the lowest index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simcore.policies.base import PreemptionView
from simcore.policies.evaluator import PreemptivePolicy, VictimSet


@dataclass(frozen=True)
class Lrtp(PreemptivePolicy):
    name: ClassVar[str] = "lrtp"
    help: ClassVar[str] = (
        "Preempts the BE jobs with the longest remaining work, on the node needing the fewest victims. "
        "It has no cap, so the same long job can be preempted again and again."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (("victims", "min"), ("min_remaining", "max"))

    def on_node(self, view: PreemptionView, k: int, here: np.ndarray) -> Iterable[VictimSet]:
        c = view.candidates
        total = view.avail[k].copy()
        added: list[int] = []
        for p in sorted(here.tolist(), key=lambda p: (-c.remaining[p], c.rank[p])):
            if view.fits(total):
                break
            added.append(p)
            total = total + c.req[p]
        for p in reversed(list(added)):
            if view.fits(total - c.req[p]):
                total = total - c.req[p]
                added.remove(p)
        return (VictimSet(added, (c.size(added), min(float(c.remaining[p]) for p in added))),)


LRTP = Lrtp()
