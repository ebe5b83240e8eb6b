"""The one number and duration format (:mod:`simcore.core.fmt`), on hand-derived values and its edge cases,
and that the study, the CLI and the dashboard all use it."""

from __future__ import annotations

import math

import pytest

from simcore.core import fmt

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 s"),
        (0.25, "0.25 s"),  # sub-second: two digits, not "0 s"
        (-0.5, "-0.5 s"),
        (1, "1 s"),
        (30.4, "30 s"),
        (119.4, "119 s"),  # seconds up to 2 minutes
        (120, "2.0 min"),  # 120 / 60
        (2700, "45.0 min"),
        (-480, "-8.0 min"),  # the sign is kept, the unit follows the size
        (-8, "-8 s"),
        (7199, "120.0 min"),  # 7199 / 60 = 119.98: still minutes below 2 hours
        (7200, "2.0 h"),
        (86_219, "23.9 h"),  # 23.95 h: still hours
        (86_221, "1 d"),  # 23.95 h rounds to 24.0 h: a day
        (90_000, "1 d 1 h"),  # beyond a day: days and whole hours (25 h)
        (183_600, "2 d 3 h"),  # 51 h
        (185_400, "2 d 4 h"),  # 51.5 h rounds to 52 h (half to even)
        (3 * 86_400, "3 d"),
        (-90_000, "-1 d 1 h"),
        (NAN, "n/a"),
        (INF, "inf s"),
    ],
)
def test_duration(seconds, text):
    assert fmt.duration(seconds) == text


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0, "0"),
        (0.0123456, "0.0123"),
        (4.5678, "4.57"),
        (-2.5, "-2.5"),
        (270.4, "270"),
        (12_345, "1.23e+04"),
        (NAN, "n/a"),
        (INF, "inf"),
    ],
)
def test_number(x, text):
    assert fmt.number(x) == text


@pytest.mark.parametrize(
    ("x", "text"), [(18, "+18.0%"), (-96.6, "-96.6%"), (0, "+0.0%"), (23.94, "+23.9%"), (NAN, "n/a")]
)
def test_pct(x, text):
    assert fmt.pct(x) == text


@pytest.mark.parametrize(
    ("value", "text"), [(0.8, "0.8"), (30.0, "30"), (30, "30"), (INF, "inf"), (1e-7, "1e-07"), ("none", "none")]
)
def test_setting(value, text):
    assert fmt.setting(value) == text


def test_estimates():
    assert fmt.estimate(1.234, 1.0, 1.5) == "1.23 [1, 1.5]"
    assert fmt.estimate(2.0, NAN, NAN) == "2"  # one replicate: no interval
    assert fmt.estimate(NAN, NAN, NAN) == "n/a" and fmt.estimate(INF, 1, 2) == "n/a"
    # a duration interval reads each bound in its own unit (2000 / 60 = 33.3, 4000 / 60 = 66.7)
    assert fmt.estimate(2000, -8, 4000, fmt.duration) == "33.3 min [-8 s, 66.7 min]"
    assert fmt.pct_estimate(18.04, 12.06, 23.94) == "+18.0% [+12.1, +23.9]"
    assert fmt.pct_estimate(-5.0, NAN, NAN) == "-5.0%"
    assert fmt.half_width(4.09, 1.69, 6.49) == "4.09 ± 2.4"  # (6.49 - 1.69) / 2
    assert fmt.half_width(4.09, NAN, NAN) == "4.09" and fmt.half_width(NAN, 1, 2) == "n/a"


def test_every_layer_formats_through_it():
    from dashboard.learn import lesson_views
    from dashboard.shared import decision_text
    from simcore.cli import run
    from simcore.experiments.study import tables

    assert not hasattr(lesson_views, "_dur") and lesson_views.fmt is fmt and decision_text.fmt is fmt
    assert tables.fmt_val(tables.Stat(3, 2000, -8, 4000), "s") == "33.3 min [-8 s, 66.7 min]"
    assert tables.fmt_pct(tables.Stat(3, -91.0, -103.7, -78.3)) == "-91.0% [-103.7, -78.3]"
    assert not hasattr(run, "_fmt") and run.fmt is fmt


def test_a_missing_value_reads_the_same_everywhere():
    assert fmt.MISSING == "n/a"
    for f in (fmt.number, fmt.cell, fmt.signed, fmt.pct, fmt.share, fmt.tenths):
        assert f(None) == fmt.MISSING and f(NAN) == fmt.MISSING, f
    assert fmt.cell(0.0123456) == "0.0123" and fmt.cell(7) == "7" and fmt.cell("x") == "x"
    assert fmt.share(0.4531) == "45.3%" and fmt.tenths(1234.56) == "1234.6"
    assert fmt.load(0.87349) == "0.873" and fmt.load(NAN) == fmt.MISSING
    assert fmt.settings([0.5, 3, "inf"]) == "0.5,3,inf" and fmt.megabytes(1_500_000) == "1.5 MB (1500000 bytes)"


def test_the_cli_tables_write_a_missing_value_as_fmt_says(tmp_path, capsys):
    """A BE-only workload has no TE slowdowns: the TE row of ``run`` reads n/a, as the dashboard would."""
    from simcore.cli import main

    wl = tmp_path / "be.csv"
    wl.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,100,1,1,1,BE\n")
    assert main(["run", str(wl), "--policy", "fifo", "--nodes", "1"]) == 0
    te_row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("TE "))
    assert te_row.split() == ["TE", "0", *[fmt.MISSING] * 5]
