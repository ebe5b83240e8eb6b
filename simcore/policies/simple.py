"""The policies that never preempt: ``fifo`` (submit order) and ``priority`` (TE first)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from simcore.policies.base import Cap, Explained, Preemption, PreemptionView


@dataclass(frozen=True)
class NoPreemption:
    name: str
    fifo_order: bool
    help: str
    preemptive: ClassVar[bool] = False
    key: ClassVar[tuple[tuple[str, str], ...]] = ()

    def caps(self, view: PreemptionView) -> tuple[Cap, ...]:
        return ()

    def victims(self, view: PreemptionView) -> Preemption | None:
        return None

    def explain(self, view: PreemptionView) -> Explained:
        return Explained(None, ())


FIFO = NoPreemption(
    "fifo",
    fifo_order=True,
    help="Jobs start in submit order, TE and BE alike, and nothing is ever preempted. "
    "The baseline: TE jobs wait behind hours of queued BE work.",
)
PRIORITY = NoPreemption(
    "priority",
    fifo_order=False,
    help="TE jobs go to the head of the queue, but nothing is preempted. "
    "A TE job still waits until some running job ends and frees room.",
)
