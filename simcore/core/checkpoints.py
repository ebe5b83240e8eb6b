"""Periodic checkpoints that cost time (knob ``checkpoint_cost``; DESIGN-failures.md point 9).

With ``checkpoint = periodic``, interval c and cost k > 0, a run segment that resumes from kept
work K (a multiple of c, 0 on the first start) takes a checkpoint each time the attained service
reaches a multiple m x c with K < m x c < duration (none at the resume point itself, none at the
finish). Each holds the job's resources for k seconds without progress and counts only once its
pause is over: an interruption at any instant of the pause, its first and last included, keeps
the previous checkpoint. Counted from the instant progress begins (after the restore), the i-th
checkpoint (i = 1, 2, ...) of the segment is reached at ``a_i = (p_i - K) + (i - 1) k`` and counts
after ``b_i = a_i + k``, with ``p_i = K + i c``; the segment ends ``(duration - K) + n k`` after
progress began, n being the number of its checkpoints. Pure arithmetic on a job's numbers, shared
by the engine (:mod:`simcore.engine.jobstate`) and the Gantt (:mod:`simcore.analysis.gantt`): with k = 0 the
engine keeps section 2's ``floor(attained / c) x c`` and never calls these.
"""

from __future__ import annotations

import math


def _index(kept: float, c: float) -> int:
    """m such that `kept` = m x c (kept work is always a whole number of intervals)."""
    return int(round(kept / c))


def last_index(duration: float, c: float) -> int:
    """The largest m >= 0 with m x c < `duration`."""
    m = max(0, math.ceil(duration / c) - 1)
    while (m + 1) * c < duration:
        m += 1
    while m > 0 and m * c >= duration:
        m -= 1
    return m


def count(kept: float, duration: float, c: float) -> int:
    """The checkpoints a segment resuming from `kept` takes before it finishes."""
    return max(0, last_index(duration, c) - _index(kept, c))


def at(elapsed: float, kept: float, duration: float, c: float, k: float) -> tuple[float, float]:
    """(attained service, kept work) of a segment resuming from `kept`, `elapsed` seconds after its
    progress began (<= 0: still restoring): the kept work is the last checkpoint counted (``b_i <
    elapsed``), else `kept`; during a pause the attained service is the checkpoint being taken."""
    if elapsed <= 0:
        return kept, kept
    m0, n = _index(kept, c), count(kept, duration, c)
    i = min(n, max(0, int(elapsed // (c + k))))  # then exact: b_i < elapsed <= b_(i+1)
    while i < n and _ends(i + 1, m0, kept, c, k) < elapsed:
        i += 1
    while i > 0 and _ends(i, m0, kept, c, k) >= elapsed:
        i -= 1
    saved = (m0 + i) * c if i else kept
    since = _ends(i, m0, kept, c, k) if i else 0.0
    if i < n and _ends(i + 1, m0, kept, c, k) - k <= elapsed:  # inside pause i + 1: the checkpoint it takes
        return (m0 + i + 1) * c, saved
    return saved + (elapsed - since), saved


def _ends(i: int, m0: int, kept: float, c: float, k: float) -> float:
    """b_i: when the i-th checkpoint of the segment counts, after progress began."""
    return ((m0 + i) * c - kept) + i * k


def counted_at(elapsed: float, kept: float, duration: float, c: float, k: float) -> float:
    """When (after progress began) the last checkpoint counted by `elapsed` counted; NaN when none has."""
    m0, n = _index(kept, c), count(kept, duration, c)
    _, saved = at(elapsed, kept, duration, c, k)
    i = _index(saved, c) - m0
    return _ends(i, m0, kept, c, k) if 0 < i <= n else math.nan


def busy(kept: float, duration: float, c: float, k: float) -> float:
    """Seconds from the start of progress to the finish of a segment resuming from `kept`: its work and its pauses."""
    return (duration - kept) + count(kept, duration, c) * k


def pauses(kept: float, duration: float, c: float, k: float) -> list[tuple[float, float]]:
    """(from, to) of each pause of a segment resuming from `kept`, after progress began, in order."""
    m0 = _index(kept, c)
    return [(_ends(i, m0, kept, c, k) - k, _ends(i, m0, kept, c, k)) for i in range(1, count(kept, duration, c) + 1)]
