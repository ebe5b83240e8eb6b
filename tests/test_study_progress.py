"""The study's progress lines (simcore.study.progress), on a hand-driven clock: plain lines when not a
terminal (throttled, one per section end), one line rewritten in place on a terminal."""

from __future__ import annotations

import io

from simcore.study.progress import StudyProgress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_are_throttled_and_each_section_end_is_told() -> None:
    clock, out = Clock(), io.StringIO()
    bar = StudyProgress(2, 15, out, tty=False, clock=clock, every=30)
    bar.begin("main", 10)
    clock.now = 10
    bar.ran_task(5)  # 10 s after the last line: not shown
    clock.now = 40
    bar.ran_task(5)
    bar.end()
    clock.now = 42
    bar.begin("curves", 5)
    clock.now = 50
    bar.ran_task(5)
    bar.end()
    assert out.getvalue().splitlines() == [
        "reproduce [1/2 main] run 0 of 15 (0%), elapsed 0 s, ETA ?",
        "reproduce [1/2 main] run 10 of 15 (67%), elapsed 40 s, ETA 20 s",
        "reproduce [1/2 main] run 10 of 15 (67%), elapsed 40 s, ETA 20 s",
        "reproduce [2/2 curves] run 10 of 15 (67%), elapsed 42 s, ETA 21 s",
        "reproduce [2/2 curves] run 15 of 15 (100%), elapsed 50 s, ETA 0 s",
    ]


def test_a_terminal_gets_one_line_per_section_rewritten_in_place() -> None:
    clock, out = Clock(), io.StringIO()
    bar = StudyProgress(1, 4, out, tty=True, clock=clock)
    bar.begin("main", 4)
    clock.now = 3
    bar.ran_task(2)
    bar.end()
    text = out.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    shown = [part.rstrip() for part in text.rstrip("\n").split("\r")[1:]]
    assert shown == [
        "reproduce [1/1 main] run 0 of 4 (0%), elapsed 0 s, ETA ?",
        "reproduce [1/1 main] run 2 of 4 (50%), elapsed 3 s, ETA 3 s",
        "reproduce [1/1 main] run 4 of 4 (100%), elapsed 3 s, ETA 0 s",
    ]


def test_resumed_runs_count_as_done_but_not_in_the_rate() -> None:
    clock, out = Clock(), io.StringIO()
    bar = StudyProgress(2, 10, out, tty=False, clock=clock)
    bar.begin("main", 6)  # every task of it already stored: none runs
    clock.now = 1
    bar.end()
    bar.begin("curves", 4)
    clock.now = 11
    bar.ran_task(2)
    bar.end()
    assert out.getvalue().splitlines()[1:] == [
        "reproduce [1/2 main] run 6 of 10 (60%), elapsed 1 s, ETA ?",
        "reproduce [2/2 curves] run 6 of 10 (60%), elapsed 1 s, ETA ?",
        "reproduce [2/2 curves] run 10 of 10 (100%), elapsed 11 s, ETA 0 s",
    ]
