"""Huge numbers wherever someone writes one (issue 31): ``--set``, a policy spec's knobs, every
numeric link parameter of Explore and Sweep, a generator parameter, an upload option. ``int()``
and ``float()`` of a 400-digit number raise OverflowError or give ``inf``, which the readers did
not expect; now each is one reader (:func:`simcore.core.numtext.parse_number`) and the value is refused
with a message naming it, shortened (a link: a notice, the default kept), never a traceback.
And runs that last thousands of years (allowed: times up to 2^53 s) on the Gantt.
"""

from __future__ import annotations

import math

import pytest
from helpers.apptest import APP, DEMO
from streamlit.testing.v1 import AppTest

from dashboard.shared import gantt_views, uploads
from dashboard.shared.scenario import SETTINGS, Scenario
from dashboard.sweep import sweeps
from simcore.cli import main
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS
from simcore.core.numtext import MAX_DIGITS, parse_number, quoted
from simcore.workload.presets import PRESETS

HUGE = "9" * 400
# a 400-digit number, its negative, one whose float is inf, one past Python's int-from-text limit (4,300 digits)
VARIANTS = [HUGE, "-" + HUGE, "1e400", "-1e400", "9" * 5000]
VARIANT_IDS = ["400-nines", "minus-400-nines", "1e400", "minus-1e400", "5000-nines"]
NUMERIC_KNOBS = sorted(name for name, k in KNOBS.items() if k.range is not None)
NUMERIC_SETTINGS = sorted(name for name, k in SETTINGS.items() if k.range is not None)
GEN_PARAMS = sorted(f"g.{name}" for name in PRESETS["demo"].params)
# every numeric parameter of an Explore link: the knobs, the page's settings, the Gantt window,
# the generator's parameters
EXPLORE_NUMBERS = [*NUMERIC_KNOBS, *NUMERIC_SETTINGS, "gantt_window", *GEN_PARAMS]
SWEEP_NUMBERS = sorted(sweeps.SETTINGS)
UPLOAD_NUMBERS = ["te_max_gpu", "te_max_hours", "compress", "window_start", "window_end"]


@pytest.mark.parametrize(
    ("text", "whole", "value"),
    [
        ("12", True, 12),
        ("9223372036854775807", True, 2**63 - 1),  # exact, beyond 2^53
        ("1e3", True, 1000),
        (" 2.0 ", True, 2),
        ("2.5", False, 2.5),
        ("inf", False, math.inf),
        ("-Infinity", False, -math.inf),
        ("9" * MAX_DIGITS, True, 10**MAX_DIGITS - 1),
        (7, False, 7.0),
    ],
)
def test_parse_number_reads_what_is_written(text: object, whole: bool, value: float) -> None:
    got = parse_number(text, whole=whole)
    assert got == value and type(got) is (int if whole else float)


@pytest.mark.parametrize(
    ("text", "whole", "why"),
    [
        ("9" * (MAX_DIGITS + 1), True, f"a number of {MAX_DIGITS + 1} digits is too large for any setting"),
        ("-" + HUGE, False, "a number of 400 digits is too large for any setting"),
        ("9" * 5000, True, "a number of 5000 digits is too large for any setting"),
        ("1e400", False, "'1e400' is beyond the largest number a float holds (1.8e308)"),
        ("inf", True, "'inf' is not a whole number"),
        ("2.5", True, "'2.5' is not a whole number"),
        ("x" * 100, False, f"{'x' * 30!r}... (100 characters) is not a number"),
        pytest.param(10**5000, True, "an integer of 5001 digits is too large for any setting", id="int-5001-digits"),
        (True, False, "True is not a number"),
    ],
)
def test_parse_number_refuses_with_a_short_reason(text: object, whole: bool, why: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_number(text, whole=whole)
    assert str(err.value) == why


def test_quoted_shortens_long_values_only() -> None:
    assert quoted("abc") == "'abc'" and quoted(2.5) == "2.5"
    assert quoted(HUGE) == f"{'9' * 30!r}... (400 characters)"


@pytest.mark.parametrize("name", NUMERIC_KNOBS)
@pytest.mark.parametrize("text", [HUGE, "1e400"], ids=VARIANT_IDS[::2][:2])
def test_set_refuses_a_huge_number_for_every_knob(name: str, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "sample_workloads/demo.csv", "--set", f"{name}={text}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: knob {name}: ") and "Traceback" not in err and len(err) < 200


def test_a_policy_spec_refuses_a_huge_knob(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "sample_workloads/demo.csv", "--policies", f"fifo,fitgpp:P={HUGE}"]) == 2
    err = capsys.readouterr().err
    assert "knob P: a number of 400 digits is too large for any setting" in err and "Traceback" not in err


@pytest.mark.parametrize("key", EXPLORE_NUMBERS)
@pytest.mark.parametrize("text", VARIANTS, ids=VARIANT_IDS)
def test_every_numeric_explore_link_parameter_is_ignored_with_a_notice(key: str, text: str) -> None:
    scenario, warnings = Scenario.from_query({key: text, "source": "generate"})
    assert len(warnings) == 1 and warnings[0].startswith(f"link parameter {key}=") and len(warnings[0]) < 300
    assert scenario == Scenario(source="generate")


@pytest.mark.parametrize("key", SWEEP_NUMBERS)
@pytest.mark.parametrize("text", VARIANTS, ids=VARIANT_IDS)
def test_every_numeric_sweep_link_parameter_is_ignored_with_a_notice(key: str, text: str) -> None:
    settings, warnings = sweeps.SweepSettings.from_query({key: text})
    assert len(warnings) == 1 and warnings[0].startswith(f"link parameter {key}=") and len(warnings[0]) < 300
    assert settings == sweeps.SweepSettings()


@pytest.mark.parametrize("option", UPLOAD_NUMBERS)
def test_a_huge_upload_option_is_a_clear_error(option: str) -> None:
    with pytest.raises(UserError) as err:
        uploads.parse_workload_upload("demo.csv", DEMO, {option: HUGE})
    assert "Traceback" not in str(err.value) and len(str(err.value)) < 300


@pytest.mark.parametrize(
    ("page", "keys"),
    [("explore", ["seed", "P", "nodes", "seeds", "node_gpu", "grace", "g.jobs"]), ("sweep", SWEEP_NUMBERS)],
)
def test_a_link_of_huge_numbers_opens_the_page_with_a_notice(page: str, keys: list[str]) -> None:
    """The links of the issue (``/?seed=`` + 400 nines, ``P=``, ``nodes=``, ``seeds=``) and more,
    at once: the page opens with the defaults and one notice line per parameter, no error box."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({key: HUGE for key in keys})
    if page != "explore":
        at.switch_page(f"app_pages/{page}.py")
    at.run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    [notice] = [c.value for c in at.code if "ignored" in c.value]
    assert sorted(line.split("=")[0].removeprefix("link parameter ") for line in notice.splitlines()) == sorted(keys)


def test_the_gantt_window_control_stays_small_for_any_run() -> None:
    """The window's start slider offers every quarter of the window's length. A run of 3,000 h
    would give 1 h windows 12,000 starts, above MAX_STARTS (10,000): that length is not offered,
    4 h (3,000 starts) is. A workload's times may reach 2^53 s (2.5e12 h): only the whole run is
    offered, and fitting a window answers at once (it listed every quarter step: a MemoryError)."""
    assert gantt_views.MAX_STARTS == 10_000
    assert gantt_views.window_lengths(3000.0) == [4.0, 8.0, 24.0, 168.0, 3000.0]
    assert gantt_views.window_lengths(1e5) == [168.0, 1e5]  # 1 d: 16,667 starts; 1 week: 2,381
    longest = 2.0**53 / 3600
    assert gantt_views.window_lengths(longest) == [longest]
    assert gantt_views.fit_window((0.0, 8.0), longest) == (0.0, longest)
    for span in (3000.0, 1e5, longest):
        for length in gantt_views.window_lengths(span):
            assert len(gantt_views.window_starts(length, span)) <= gantt_views.MAX_STARTS + 1


def test_a_run_beyond_the_gantt_axis_is_said_not_drawn() -> None:
    """Plotly's date axis ends with the year 9999: from the Gantt's day 1 (2000-01-01), 8,000 years
    less a day, about 2.52e11 s. A link generating 600 jobs with a median of 1e9 s on one node of 8
    GPUs runs them mostly one after the other (most BE jobs take the whole node): fifo's last ends at
    3.6e11 s (11,300 years). The Gantt and the job's chart say so; no tab fails (the Gantt's window
    control listed 1.1e8 starts for that run)."""
    assert gantt_views.GANTT_MAX_SECONDS == pytest.approx(7999.997 * 365.2425 * 86400, rel=1e-6)
    assert gantt_views.beyond_axis(gantt_views.GANTT_MAX_SECONDS) is None
    assert "longer than the Gantt's time axis" in str(gantt_views.beyond_axis(3e11))
    slow = {f"g.{c}_{p}": "1e9" for c in ("te", "be") for p in ("median_s", "max_s")}
    for tab in ("Gantt", "One job"):
        at = AppTest.from_file(APP, default_timeout=300)
        at.query_params.update({"source": "generate", "g.jobs": "600", "g.nodes": "1", **slow, "tab": tab})
        at.query_params["policies"] = "fifo,k8s"
        at.run()
        assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
        assert any("longer than the Gantt's time axis" in i.value for i in at.info), tab
