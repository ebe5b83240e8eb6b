"""Down time of nodes (DESIGN.md rule 12, DESIGN-failures.md points 1-2): the windows a node is down
in, from a node-events file and from random failures.

A :class:`NodeWindow` is one window ``[start, end)`` of one node (by name), of kind ``failure``
(unplanned: every job on the node stops at ``start`` without grace) or ``maintenance`` (planned:
the node drains from ``start - grace``, its jobs signalled as by a preemption). A node is down
over the union of its windows. :class:`NodeEvents` holds a file's windows; a cluster carries them
(:attr:`simcore.core.model.ClusterSpec.node_events`). Random failures (knob ``mtbf`` finite) come from
:func:`failure_windows`, one seeded stream per node, independent of the policy and of the file.
Times are seconds; nothing here imports the rest of simcore (the model imports it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

FAILURE = "failure"
MAINTENANCE = "maintenance"
#: the kinds of a window, in the order of their codes (:attr:`NodeWindow.code`)
KINDS: tuple[str, ...] = (FAILURE, MAINTENANCE)
#: the columns of a node-events file and of :meth:`NodeEvents.rows`, in order
NODE_EVENT_COLUMNS: tuple[str, ...] = ("node", "start", "end", "kind")
#: the spawn key's first entry of the random failures' streams: node i's is (FAILURE_STREAM, i)
#: (the saves' generator of :mod:`simcore.core.saves` is the first child stream, spawn key (0,))
FAILURE_STREAM = 1


@dataclass(frozen=True)
class NodeWindow:
    """Node ``node`` is down over ``[start, end)`` (seconds, 0 <= start < end, finite)."""

    node: str
    start: float
    end: float
    kind: str

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"node window of {self.node!r}: kind must be one of {', '.join(KINDS)} (got {self.kind!r})"
            )
        if not (math.isfinite(self.start) and math.isfinite(self.end) and 0 <= self.start < self.end):
            raise ValueError(
                f"node window of {self.node!r}: needs finite times with 0 <= start < end (got {self.start!r}, {self.end!r})"
            )

    @property
    def code(self) -> int:
        """The kind as its index in :data:`KINDS`."""
        return KINDS.index(self.kind)


@dataclass(frozen=True)
class NodeEvents:
    """The down windows of a node-events file, in file order (they may overlap: a node is down over their union)."""

    windows: tuple[NodeWindow, ...]

    @classmethod
    def of(cls, rows: Iterable[tuple[str, float, float, str]]) -> NodeEvents:
        """From (node, start, end, kind) tuples: a convenience for tests and notebooks."""
        return cls(tuple(NodeWindow(str(n), float(s), float(e), str(k)) for n, s, e, k in rows))

    def __len__(self) -> int:
        return len(self.windows)

    def check_nodes(self, names: Sequence[str]) -> None:
        """ValueError naming the first window whose node is not one of `names`."""
        known = set(names)
        for i, w in enumerate(self.windows, start=1):
            if w.node not in known:
                raise ValueError(f"node window {i}: node {w.node!r} is not in the cluster")

    def rows(self) -> list[tuple[str, float, float, str]]:
        """(node, start, end, kind) per window, in order (:data:`NODE_EVENT_COLUMNS`)."""
        return [(w.node, w.start, w.end, w.kind) for w in self.windows]


def failure_rng(seed: int, node: int) -> np.random.Generator:
    """Node `node`'s generator of random failures: the stream of spawn key (1, node) of `seed`."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(FAILURE_STREAM, node)))


def failure_windows(seed: int, node: int, mtbf: float, repair: float, first: float) -> Iterator[tuple[float, float]]:
    """Node `node`'s random failure windows (start, end), endless, in time order (DESIGN-failures point 2):
    the first failure at `first` (the run's first submit time) + exponential(mtbf), each down for
    `repair` seconds, each next failure at the end of the previous repair + exponential(mtbf); one
    draw of ``Generator.exponential(mtbf)`` per failure. Nothing when `mtbf` is inf."""
    if math.isinf(mtbf):
        return
    rng = failure_rng(seed, node)
    up_from = first
    while True:
        start = up_from + float(rng.exponential(mtbf))
        up_from = start + repair
        yield start, up_from
