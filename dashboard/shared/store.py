"""A results store shared by every visitor, bounded in bytes and by age; pure (no Streamlit).

Entries are keyed by content (workload hash, cluster, config, ...), so identical scenarios
are computed once for all visitors. The total size (each entry's :func:`deep_size`, the memory
it holds in this process) stays under
``max_bytes``, least recently used entries leaving first, and an entry older than
``max_age`` seconds is dropped when seen. A computation in flight is announced with
:meth:`claim`, so a second visitor asking for the same thing waits for it instead of
starting it again. ``dashboard/shared/data.py`` holds the one instance (``st.cache_resource``).
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
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
            if size > self.max_bytes:
                return
            self._items[key] = (value, size, self._clock())
            self._bytes += size
            now = self._clock()
            for old in [k for k, (_, _, t) in self._items.items() if now - t > self.max_age]:
                self._drop(old)
            while self._bytes > self.max_bytes:
                self._drop(next(iter(self._items)))

    def _drop(self, key: Hashable) -> None:
        _, size, _ = self._items.pop(key)
        self._bytes -= size

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
