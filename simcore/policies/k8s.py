"""``k8s``: kube-scheduler DefaultPreemption with one priority level for BE and no budgets.

Per node: take all running BE jobs; reprieve them one at a time, longest-running first,
keeping each whose return still lets the TE job fit. Node: fewest victims, then the latest
earliest-victim-start, then the lowest index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.policies.base import Explained, Preemption, PreemptionView, Ranked, Uncapped, best_of, explain_ranked


@dataclass(frozen=True)
class K8s(Uncapped):
    name: str = "k8s"
    preemptive: bool = True
    fifo_order: bool = False
    help: str = (
        "Kubernetes-style preemption: on each node all BE jobs are candidates and the longest-running "
        "are given back while the TE job still fits. The node with the fewest victims, the most recently "
        "started ones, is chosen, with no regard for lost work or repeated preemption."
    )
    key: tuple[tuple[str, str], ...] = (("victims", "min"), ("earliest_victim_start", "max"))

    def victims(self, view: PreemptionView) -> Preemption | None:
        return best_of(self._per_node(view))

    def explain(self, view: PreemptionView) -> Explained:
        return explain_ranked(self._per_node(view), lambda key: (key[0], -key[1]))

    def _per_node(self, view: PreemptionView) -> Ranked:
        c = view.candidates
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
            yield key, Preemption(k, tuple(sorted(keep, key=lambda p: c.rank[p])))


K8S = K8s()
