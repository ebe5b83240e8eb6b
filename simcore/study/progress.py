"""The study's progress on stderr: which section, run k of n (a run is one policy on one workload),
elapsed time and ETA.

On a terminal it is one line rewritten in place, ended when its section ends; elsewhere (a log
file, CI) it is plain lines, at most one every ``every`` seconds plus one when a section ends, so
logs stay readable. The ETA assumes the remaining runs take as long as the ones run so far.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from simcore import fmt

PLAIN_EVERY = 30.0  # seconds between two plain lines (not a terminal)


class StudyProgress:
    """Progress over the study's sections; ``total`` runs in all (every section's simulations)."""

    def __init__(
        self,
        sections: int,
        total: int,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        every: float = PLAIN_EVERY,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.sections, self.total, self.clock, self.every = sections, total, clock, every
        self.start = clock()
        self.done = 0  # runs finished, resumed ones included
        self.ran = 0  # runs simulated now (the ETA's rate)
        self.index, self.name, self.planned = 0, "", 0
        self.last_line = -float("inf")

    def begin(self, name: str, runs: int) -> None:
        """A section of `runs` runs starts."""
        self.index += 1
        self.name, self.planned = name, self.done + runs
        self._show(force=True)

    def ran_task(self, runs: int) -> None:
        """A task of `runs` runs finished."""
        self.done += runs
        self.ran += runs
        self._show()

    def end(self) -> None:
        """The section ended: its runs all count as done (resumed ones too)."""
        self.done = self.planned
        self._show(force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def line(self) -> str:
        elapsed = self.clock() - self.start
        pct = 100 * self.done / self.total if self.total else 100.0
        left = self.total - self.done
        eta = fmt.duration(elapsed / self.ran * left) if self.ran and left else "?" if left else "0 s"
        return (
            f"reproduce [{self.index}/{self.sections} {self.name}] run {self.done} of {self.total} "
            f"({pct:.0f}%), elapsed {fmt.duration(elapsed)}, ETA {eta}"
        )

    def _show(self, force: bool = False) -> None:
        now = self.clock()
        if self.tty:
            self.stream.write("\r" + self.line().ljust(100))
        elif force or now - self.last_line >= self.every:
            self.stream.write(self.line() + "\n")
        else:
            return
        self.last_line = now
        self.stream.flush()
