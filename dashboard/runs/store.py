"""A results store shared by every visitor, bounded in bytes and by age; pure (no Streamlit).

Entries are keyed by content (workload hash, cluster, config, ...), so identical scenarios
are computed once for all visitors. The total size (each entry's :func:`deep_size`, the memory
it holds in this process) stays under
``max_bytes``, least recently used entries leaving first, and an entry older than
``max_age`` seconds is dropped when seen. An entry dropped while a page being drawn still holds it
(or one too large to keep) is still in memory: it counts against ``max_bytes`` until it is gone
(:meth:`BoundedStore.elsewhere`), so the store's size is the memory its results really hold, and
while what pages hold beyond the store exceeds ``max_bytes`` no new computation starts
(:meth:`BoundedStore.has_room`, the gate of :mod:`dashboard.runs.slots`). A computation in flight is announced with
:meth:`claim`, so a second visitor asking for the same thing waits for it instead of
starting it again. ``dashboard/runs/data.py`` holds the one instance (``st.cache_resource``).
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd


class BoundedStore:
    def __init__(self, max_bytes: int, max_age: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_bytes = max_bytes
        self.max_age = max_age
        self._clock = clock
        self._lock = threading.Lock()
        self._items: OrderedDict[Hashable, tuple[Any, int, float]] = OrderedDict()  # key -> (value, bytes, stored at)
        self._bytes = 0
        self._flights: dict[Hashable, threading.Event] = {}
        self._left: list[tuple[weakref.ref[Any], int]] = []  # dropped values, maybe alive elsewhere

    def get(self, key: Hashable) -> Any | None:
        """The value stored for ``key`` (marked as recently used), or None."""
        with self._lock:
            return self._get(key)

    def _get(self, key: Hashable) -> Any | None:
        item = self._items.get(key)
        if item is None:
            return None
        if self._clock() - item[2] > self.max_age:
            self._drop(key)
            return None
        self._items.move_to_end(key)
        return item[0]

    def put(self, key: Hashable, value: Any, size: int) -> None:
        """Store ``value`` (``size`` bytes); an entry larger than the whole store is not kept."""
        with self._lock:
            if key in self._items:
                self._drop(key)
            if size + self._elsewhere() > self.max_bytes:
                self._leave(value, size)
            else:
                self._items[key] = (value, size, self._clock())
                self._bytes += size
            now = self._clock()
            for old in [k for k, (_, _, t) in self._items.items() if now - t > self.max_age]:
                self._drop(old)
            while self._items and self._bytes + self._elsewhere() > self.max_bytes:
                self._drop(next(iter(self._items)))

    def _drop(self, key: Hashable) -> None:
        value, size, _ = self._items.pop(key)
        self._bytes -= size
        self._leave(value, size)

    def _leave(self, value: Any, size: int) -> None:
        """Count ``value`` as held elsewhere for as long as it lives (a type without weak
        references, a plain dict or list, is taken as freed at once)."""
        try:
            self._left.append((weakref.ref(value), size))
        except TypeError:
            pass

    def _elsewhere(self) -> int:
        self._left = [(ref, size) for ref, size in self._left if ref() is not None]
        return sum(size for _, size in self._left)

    def elsewhere(self) -> int:
        """Bytes of values the store has dropped (or not kept) that are still in memory: held by
        pages being drawn, until those finish."""
        with self._lock:
            return self._elsewhere()

    def has_room(self) -> bool:
        """May a computation start? Not while what pages hold beyond the store exceeds
        ``max_bytes``: each computation started adds at most one result to the memory, so the
        results in memory stay below ``max_bytes`` plus one result per computation running."""
        return self.elsewhere() <= self.max_bytes

    def values(self) -> list[Any]:
        """Every value stored now, least recently used first (what the store keeps alive)."""
        with self._lock:
            return [value for value, _, _ in self._items.values()]

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def claim(self, key: Hashable) -> threading.Event | None:
        """None: the caller now computes ``key`` and must call :meth:`release`. Otherwise the
        event of the computation in flight: wait for it, then look again."""
        with self._lock:
            flight = self._flights.get(key)
            if flight is not None:
                return flight
            self._flights[key] = threading.Event()
            return None

    def release(self, key: Hashable) -> None:
        """End the caller's computation of ``key`` (finished, failed or cancelled)."""
        with self._lock:
            flight = self._flights.pop(key, None)
        if flight is not None:
            flight.set()


def deep_size(value: Any) -> int:
    """Bytes ``value`` holds in memory, everything it refers to included (each object once).

    A pickle stores a short text in a few bytes where memory holds a whole Python object (a
    JobTable's ids take about twice their pickled size), so this, not the pickle, is what counts
    against ``cache_mb``."""
    seen: set[int] = set()
    total = 0
    todo = [value]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, pd.DataFrame | pd.Series):
            total += int(np.sum(obj.memory_usage(index=True, deep=True)))
            continue
        if isinstance(obj, pd.Index):
            total += obj.memory_usage(deep=True)
            continue
        if isinstance(obj, np.ndarray):
            total += sys.getsizeof(obj) + (0 if obj.base is None else obj.nbytes)
            if obj.dtype == object:
                todo.extend(obj.ravel().tolist())
            continue
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            todo.extend(obj)
        elif dataclasses.is_dataclass(obj):
            todo.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))
    return total
