"""Queue order (DESIGN.md rule 2) as a rank per job, fixed before the run.

``fifo``: submit time, then job_id. Every other policy: class (TE first), then submit time,
then job_id. The order without the class is also "job order", the last tie-breaker of
policies and the order of same-instant events of one kind.
"""

from __future__ import annotations

import numpy as np

from simcore.core.model import JobTable


def job_order(jobs: JobTable, te_first: bool) -> np.ndarray:
    """Queue position of each job (rule 2): [class,] submit time, then job_id.

    job_id compares numerically (any size) when every id matches ``-?[0-9]+``, else as a
    string; ids of equal value (``7``, ``07``) then go by their text.
    """
    return _rank(_keys(jobs) + ([~jobs.is_te] if te_first else []))


def job_orders(jobs: JobTable, te_first: bool) -> tuple[np.ndarray, np.ndarray]:
    """Job order (no class) and the queue order (``te_first``: class first, else job order
    itself), the ids' key built once for both (on a 1M-job run it takes most of a sort's time)."""
    keys = _keys(jobs)
    order = _rank(keys)
    return order, _rank([*keys, ~jobs.is_te]) if te_first else order


def int_pool(n: int) -> np.ndarray:
    """0..n-1 as an object array: lists taken from it (``pool[perm].tolist()``) share one int
    object per value, where ``perm.tolist()`` makes a new one per item (28 bytes each)."""
    return np.arange(n).astype(object)


def _keys(jobs: JobTable) -> list[np.ndarray]:
    """The sort keys of job order, least significant first (np.lexsort's order)."""
    text = _as_text(jobs.job_id)
    id_key = _int_key(text) if text is not None and _all_integers(text) else None
    if id_key is None:  # the ids not all text yet, or beyond int64, or not all integers
        ids = jobs.job_id.astype(str)
        id_key = _id_key(ids)
        numeric = id_key is not ids
    else:
        numeric = True
    keys = [id_key, jobs.submit_time]
    if numeric and _has_equal(id_key):
        keys.insert(0, jobs.job_id.astype(str))
    return keys


def _as_text(job_id: np.ndarray) -> list[str] | None:
    """The ids as a list of str when every one already is (an object array of text, as the workload
    readers and presets make; a unicode array), without the copy ``astype(str)`` makes; else None."""
    ids = job_id.tolist()
    if job_id.dtype.kind == "U" or all(type(x) is str for x in ids):
        return ids
    return None


def _int_key(text: list[str]) -> np.ndarray | None:
    """The ids' integer values (each matches ``-?[0-9]+``), or None beyond int64 (:func:`_id_key`
    ranks those). ``int`` of each: the values ``astype(np.int64)`` parses, about twice as fast."""
    try:
        return np.fromiter(map(int, text), dtype=np.int64, count=len(text))
    except OverflowError:
        return None


def _rank(keys: list[np.ndarray]) -> np.ndarray:
    """Each row's position in the lexicographic order of `keys` (the last most significant)."""
    order = np.lexsort(keys)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _has_equal(key: np.ndarray) -> bool:
    """Do two ids have the same numeric key (``7``, ``07``)? A sort and one comparison of
    neighbours: faster than counting the unique keys."""
    s = np.sort(key)
    return bool((s[1:] == s[:-1]).any())


def _all_integers(ids: np.ndarray | list[str]) -> bool:
    """Does every id match ``-?[0-9]+``? Checked on all ids at once, as bytes (fast in C)."""
    try:
        b = "\n".join(ids if isinstance(ids, list) else ids.tolist()).encode("ascii")
    except UnicodeEncodeError:
        return False
    return (
        len(b) > 0
        and b.count(b"\n") == len(ids) - 1  # no id holds a newline itself
        and not b.translate(None, b"0123456789-\n")  # only digits and minus signs
        and b"\n\n" not in b
        and not b.startswith(b"\n")
        and not b.endswith(b"\n")  # no empty id
        # a minus sign only first in an id, and followed by a digit
        and b.count(b"-") == b.count(b"\n-") + b.startswith(b"-")
        and b"-\n" not in b
        and b"--" not in b
        and not b.endswith(b"-")
    )


def _id_key(ids: np.ndarray) -> np.ndarray:
    """A sort key of the ids: their numeric order when all are integers, else the text itself."""
    if not _all_integers(ids):
        return ids
    try:
        return ids.astype(np.int64)
    except OverflowError:  # beyond int64: rank them as Python ints
        values = [int(x) for x in ids.tolist()]
        order = sorted(range(len(values)), key=values.__getitem__)
        rank = np.empty(len(values), dtype=np.int64)
        prev, r = None, -1
        for i in order:
            if values[i] != prev:
                prev, r = values[i], r + 1
            rank[i] = r
        return rank
