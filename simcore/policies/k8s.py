"""``k8s``: kube-scheduler DefaultPreemption with one priority level for BE and no budgets.

Per node: take all running BE jobs; reprieve them one at a time, longest-running first,
keeping each whose return still lets the TE job fit. Node: fewest victims, then the latest
earliest-victim-start, then the lowest index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.policies.base import Preemption, PreemptionView


@dataclass(frozen=True)
class K8s:
    name: str = "k8s"
    preemptive: bool = True
    fifo_order: bool = False
    help: str = (
        "Kubernetes-style preemption: on each node all BE jobs are candidates and the longest-running "
        "are given back while the TE job still fits. The node with the fewest victims, the most recently "
        "started ones, is chosen, with no regard for lost work or repeated preemption."
    )

    def victims(self, view: PreemptionView) -> Preemption | None:
        c = view.candidates
        best: tuple | None = None
        for k in view.nodes_feasible_without_all():
            pos = c.on_node(k)
            total = view.avail[k] + c.req[pos].sum(axis=0)
            keep = []
            for p in sorted(pos.tolist(), key=lambda p: (c.seg_start[p], c.rank[p])):
                if view.fits(total - c.req[p]):
                    total = total - c.req[p]
                else:
                    keep.append(p)
            key = (len(keep), -float(np.min(c.seg_start[keep])), k)
            if best is None or key < best[0]:
                best = (key, Preemption(k, tuple(sorted(keep, key=lambda p: c.rank[p]))))
        return None if best is None else best[1]


K8S = K8s()
