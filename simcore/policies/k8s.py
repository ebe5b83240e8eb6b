"""``k8s``: kube-scheduler DefaultPreemption with one priority level for BE and no budgets.

Per node: take all running BE jobs; reprieve them one at a time, longest-running first,
keeping each whose return still lets the TE job fit. Node: fewest victims (workers stopped: a gang
counts each of its workers), then the latest
earliest-victim-start, then the lowest index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from simcore.policies.base import PreemptionView, minus, plus
from simcore.policies.evaluator import PreemptivePolicy, VictimSet, size_and_least


@dataclass(frozen=True)
class K8s(PreemptivePolicy):
    name: ClassVar[str] = "k8s"
    help: ClassVar[str] = (
        "Kubernetes-style preemption: on each node all BE jobs are candidates and the longest-running "
        "are given back while the TE job still fits. The node with the fewest victims, the most recently "
        "started ones, is chosen, with no regard for lost work or repeated preemption."
    )
    key: ClassVar[tuple[tuple[str, str], ...]] = (("victims", "min"), ("earliest_victim_start", "max"))

    def on_node(self, view: PreemptionView, k: int, here: list[int]) -> Iterable[VictimSet]:
        keep = here if len(here) == 1 else self._not_reprieved(view, k, here)
        return (size_and_least(view, keep, "seg_start"),)

    @staticmethod
    def _not_reprieved(view: PreemptionView, k: int, here: list[int]) -> list[int]:
        """Take all of `here`, then give back the longest-running first while the TE job still fits
        (with queues: and the quota condition still holds; the evaluator drops an ineligible result).
        (A lone job is never given back: the TE job fits on no node as things are, the evaluator's contract.)"""
        c = view.candidates
        req, start = c.column("req"), c.column("seg_start")
        total = view.avail_on(k)
        for p in here:
            total = plus(total, req[p])
        qv = view.quota
        freed = 0 if qv is None else qv.frees(here)
        keep = []
        for p in sorted(here, key=start.__getitem__):  # `here` is in job order: the sort is stable, so ties go by rank
            rest = minus(total, req[p])
            if view.fits(rest) and (qv is None or freed - qv.own_gpus(p) >= qv.short()):
                total = rest
                if qv is not None:
                    freed -= qv.own_gpus(p)
            else:
                keep.append(p)
        return keep


K8S = K8s()
