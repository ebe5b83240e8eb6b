"""The running BE jobs: the jobs a preemptive policy may pick victims from.

A job joins when it starts and leaves when it finishes or is signalled (a preempting job is
never a victim again until it restarts, DESIGN.md section 4). Policies read the set as
compact numpy arrays at every victim search, while jobs join and leave at every start and
finish, so the set is a slot table: a numpy array of job indices with -1 in free slots,
plus the slot of each job. Joining and leaving are O(1) and a search reads the members
with one vectorised mask.
"""

from __future__ import annotations

import numpy as np

_FIRST_SIZE = 64  # slots before the first doubling: most clusters run fewer BE jobs at once


class RunningTable:
    def __init__(self, n_jobs: int) -> None:
        self._job = np.full(_FIRST_SIZE, -1, dtype=np.int64)  # job in each slot, -1 when free
        self._free = list(range(_FIRST_SIZE - 1, -1, -1))  # free slots, the lowest last (popped first)
        self._slot_of = [-1] * n_jobs

    def add(self, j: int) -> None:
        if not self._free:  # full: double it, the new slots free, the lowest popped first
            old = len(self._job)
            self._job = np.concatenate([self._job, np.full(old, -1, dtype=np.int64)])
            self._free = list(range(2 * old - 1, old - 1, -1))
        s = self._free.pop()
        self._job[s] = j
        self._slot_of[j] = s

    def remove(self, j: int) -> None:
        s = self._slot_of[j]
        self._job[s] = -1
        self._slot_of[j] = -1
        self._free.append(s)

    def __contains__(self, j: int) -> bool:
        return self._slot_of[j] >= 0

    def __len__(self) -> int:
        return int(np.count_nonzero(self._job >= 0))

    def jobs(self) -> np.ndarray:
        """The members, in slot order (callers sort them as they need)."""
        return self._job[self._job >= 0]
