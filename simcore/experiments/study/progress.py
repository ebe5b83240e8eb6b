"""The study's progress on stderr: run k of n (a run is one policy on one workload), how many of
the study's sweeps are complete, the task that just finished (its sweep, setting and seed),
elapsed time and ETA.

Every sweep of the study runs in one pool (:func:`simcore.experiments.study.run.run_grids`), so tasks of
different sweeps finish interleaved: the line names the sweep of the last one, and a sweep is
announced when its last task is in. On a terminal it is one line rewritten in place (cut to the
terminal's width); elsewhere (a log file, CI) it is plain lines, at most one every ``every``
seconds plus one per completed sweep, so logs stay readable. The ETA assumes the remaining runs
take as long as the ones run so far; runs stored by an earlier, resumed study count as done but
not in that rate.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from simcore.core import fmt

PLAIN_EVERY = 30.0  # seconds between two plain lines (not a terminal)
SETTING_CHARS = 40  # a task's setting is cut to this many characters in the line


class StudyProgress:
    """Progress over the study's sweeps; ``runs`` holds each sweep's runs (its simulations);
    ``width``: a terminal line's characters (default: the terminal's width)."""

    def __init__(
        self,
        runs: Mapping[str, int],
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        every: float = PLAIN_EVERY,
        width: int | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock, self.every = clock, every
        self.width = width if width is not None else shutil.get_terminal_size().columns - 1
        self.runs = dict(runs)
        self.total = sum(self.runs.values())
        self.start = clock()
        self.done_in = dict.fromkeys(self.runs, 0)  # runs finished per sweep, stored ones included
        self.ran = 0  # runs simulated now (the ETA's rate)
        self.last = ""  # the task that finished last
        self.last_line = self.start
        self.shown = -1  # runs done at the last line shown

    @property
    def done(self) -> int:
        return sum(self.done_in.values())

    @property
    def complete(self) -> int:
        return sum(self.done_in[name] >= n for name, n in self.runs.items())

    def stored(self, sweep: str, runs: int) -> None:
        """``runs`` of ``sweep`` are already stored (a resumed study): done without running."""
        if not runs:
            return
        self._add(sweep, runs)
        self._show(force=True)

    def ran_task(self, sweep: str, runs: int, point: tuple[tuple[str, Any], ...], seed: int) -> None:
        """A task of ``sweep`` (``runs`` runs of one ``point`` and ``seed``) finished."""
        self.ran += runs
        setting = ", ".join(f"{k}={v}" for k, v in point) or "the sweep's base"
        if len(setting) > SETTING_CHARS:
            setting = setting[: SETTING_CHARS - 3] + "..."
        self.last = f"{sweep} ({setting}; seed {seed})"
        before = self.complete
        self._add(sweep, runs)
        self._show(force=self.complete > before)

    def end(self) -> None:
        """Every run is in: a last line unless one already said so; on a terminal the line is ended."""
        if self.tty or self.shown != self.total:
            self._show(force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def line(self) -> str:
        elapsed = self.clock() - self.start
        done, left = self.done, self.total - self.done
        pct = 100 * done / self.total if self.total else 100.0
        eta = fmt.duration(elapsed / self.ran * left) if self.ran and left else "?" if left else "0 s"
        last = f", last: {self.last}" if self.last else ""
        return (
            f"reproduce: run {done:,} of {self.total:,} ({pct:.0f}%), {self.complete} of {len(self.runs)} "
            f"sweeps complete{last}, elapsed {fmt.duration(elapsed)}, ETA {eta}"
        )

    def _add(self, sweep: str, runs: int) -> None:
        self.done_in[sweep] = min(self.runs[sweep], self.done_in[sweep] + runs)

    def _show(self, force: bool = False) -> None:
        now = self.clock()
        if self.tty:
            self.stream.write("\r" + self.line()[: self.width].ljust(self.width))
        elif force or now - self.last_line >= self.every:
            self.stream.write(self.line() + "\n")
        else:
            return
        self.last_line, self.shown = now, self.done
        self.stream.flush()
