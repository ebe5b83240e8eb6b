"""The study's progress lines (simcore.experiments.study.progress), on a hand-driven clock: plain lines when not a
terminal (throttled, one more per completed sweep), one line rewritten in place on a terminal, the
task that finished last named by its sweep, setting and seed, and stored runs of a resumed study."""

from __future__ import annotations

import io

from simcore.experiments.study.progress import SETTING_CHARS, StudyProgress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_are_throttled_and_each_completed_sweep_is_told() -> None:
    clock, out = Clock(), io.StringIO()
    bar = StudyProgress({"main": 10, "curves": 5}, out, tty=False, clock=clock, every=30)
    clock.now = 10
    bar.ran_task("main", 5, (("load", 0.9),), 0)  # 10 s after the start: no line
    clock.now = 20
    bar.ran_task("curves", 5, (), 3)  # curves complete: a line, however soon
    clock.now = 40
    bar.ran_task("main", 5, (("load", 0.9),), 1)  # main complete
    bar.end()
    assert out.getvalue().splitlines() == [
        "reproduce: run 10 of 15 (67%), 1 of 2 sweeps complete, last: curves (the sweep's base; seed 3), "
        "elapsed 20 s, ETA 10 s",
        "reproduce: run 15 of 15 (100%), 2 of 2 sweeps complete, last: main (load=0.9; seed 1), elapsed 40 s, ETA 0 s",
    ]  # the end adds no line: the last one already said every run is in


def test_a_terminal_gets_one_line_rewritten_in_place() -> None:
    clock, out = Clock(), io.StringIO()
    bar = StudyProgress({"main": 4}, out, tty=True, clock=clock, width=150)
    clock.now = 3
    bar.ran_task("main", 2, (("grace", 30), ("min_runtime", 600)), 7)
    bar.end()
    text = out.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    shown = [part.rstrip() for part in text.rstrip("\n").split("\r")[1:]]
    line = "reproduce: run 2 of 4 (50%), 0 of 1 sweeps complete, last: main (grace=30, min_runtime=600; seed 7)"
    assert [s[: len(line)] for s in shown] == [line, line]
    assert all(s.endswith(", elapsed 3 s, ETA 3 s") for s in shown)


def test_stored_runs_count_as_done_but_not_in_the_rate() -> None:
    clock, out = Clock(), io.StringIO()
    bar = StudyProgress({"main": 6, "curves": 4}, out, tty=False, clock=clock)
    bar.stored("main", 6)  # every task of main already stored by the earlier run
    bar.stored("curves", 0)  # nothing of curves: no line
    clock.now = 10
    bar.ran_task("curves", 2, (), 0)
    bar.ran_task("curves", 2, (), 1)
    clock.now = 12
    bar.end()
    assert out.getvalue().splitlines() == [
        "reproduce: run 6 of 10 (60%), 1 of 2 sweeps complete, elapsed 0 s, ETA ?",
        "reproduce: run 10 of 10 (100%), 2 of 2 sweeps complete, last: curves (the sweep's base; seed 1), "
        "elapsed 10 s, ETA 0 s",
    ]  # the rate is 2 runs in 10 s: 4 run in 10 s, not 10


def test_a_long_setting_is_cut() -> None:
    bar = StudyProgress({"curves": 2}, io.StringIO(), tty=False, clock=Clock())
    bar.ran_task("curves", 1, tuple((f"knob_{i}", 1000 * i) for i in range(9)), 0)
    setting = bar.last.removeprefix("curves (").split("; seed")[0]
    assert len(setting) == SETTING_CHARS and setting.endswith("...")


def test_a_terminal_line_is_cut_to_its_width() -> None:
    out = io.StringIO()
    bar = StudyProgress({"main": 4}, out, tty=True, clock=Clock(), width=60)
    bar.ran_task("main", 2, (("grace", 30),), 0)
    assert [len(s) for s in out.getvalue().split("\r")[1:]] == [60]
