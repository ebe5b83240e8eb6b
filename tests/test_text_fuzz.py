"""Fuzzing what a visitor or a user types: every link parameter of the Explore and Sweep pages,
every knob's text, and the command line's numeric options. A link opens the page with a notice for
each parameter it ignores and never an error box; a command ends in its output or in ``error: ...``
(exit 2), never a traceback (issue 31). The example counts are the profile's (``ci``: 100; a hunt:
``HYPOTHESIS_PROFILE=hunt``, 2,000 fresh ones each); the pages themselves (AppTest, seconds each)
get a twentieth of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.apptest import APP
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from dashboard.shared import uploads
from dashboard.shared.scenario import GEN_PREFIX, SETTINGS, TEXT_FIELDS, UPLOAD_PREFIX, Scenario
from dashboard.sweep import sweeps
from simcore.cli import main
from simcore.core.knobs import KNOBS
from simcore.workload.presets import PRESETS

HUGE = "9" * 400
VALUES = [
    "",
    " ",
    "0",
    "1",
    "-1",
    "2.5",
    "1e3",
    "1e308",
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "-inf",
    HUGE,
    "-" + HUGE,
    "9" * 5000,
    "9223372036854775808",
    "٣",
    "1_0",
    "0x10",
    "1,2",
    "0,1",
    "1,2,3",
    "5,1",
    "none",
    "fifo",
    "fifo,k8s",
    "fitgpp:P=1",
    "k8s,k8s",
    "Gantt",
    "sample",
    "generate",
    "upload",
    "custom",
    "paper-gang",
    "colour",
    "group,colour",
    "mmc",
    "[x](http://127.0.0.1:1/)",
    "x" * 300,
]
PRESET_PARAMS = sorted({p for spec in PRESETS.values() for p in spec.params})
EXPLORE_KEYS = [
    *SETTINGS,
    *KNOBS,
    *TEXT_FIELDS,
    "policies",
    "gantt_window",
    "gantt_nodes",
    "gantt_queue",
    *(GEN_PREFIX + p for p in PRESET_PARAMS),
    *(UPLOAD_PREFIX + o for o in uploads.UPLOAD_DEFAULTS),
]
SWEEP_KEYS = ["preset", "jobs", "knob", "values", "policies", "baseline", "seeds", "workers", "dask", "run"]
values = st.sampled_from(VALUES) | st.text(max_size=8)


def links(keys: list[str]) -> st.SearchStrategy[dict[str, str]]:
    return st.dictionaries(st.sampled_from(keys) | st.text(max_size=4), values, max_size=6)


@given(links(EXPLORE_KEYS))
def test_an_explore_link_is_read_or_its_parameters_ignored(query: dict[str, str]) -> None:
    """Whatever the link holds, a scenario and short notices; the scenario's own link reads back
    without a notice to a scenario with that same link (a link the page writes is one it reads)."""
    scenario, warnings = Scenario.from_query(query)
    assert all(len(w) < 600 for w in warnings), warnings
    again, warnings = Scenario.from_query(scenario.to_query())
    assert warnings == [] and again.to_query() == scenario.to_query()


@given(links(SWEEP_KEYS))
def test_a_sweep_link_is_read_or_its_parameters_ignored(query: dict[str, str]) -> None:
    settings_, warnings = sweeps.SweepSettings.from_query(query)
    assert all(len(w) < 600 for w in warnings), warnings
    again, warnings = sweeps.SweepSettings.from_query(settings_.to_query())
    assert warnings == [] and again.to_query() == settings_.to_query()


@given(st.sampled_from(sorted(KNOBS)), values)
def test_every_knob_reads_text_in_range_or_says_why(name: str, text: str) -> None:
    knob = KNOBS[name]
    try:
        value = knob.read(text)
    except ValueError as exc:
        assert str(exc).startswith(f"knob {name}: ") and len(str(exc)) < 300
        return
    knob.check(value)


NUMERIC_OPTIONS = {
    "run": [
        "--nodes",
        "--node-cpu",
        "--node-mem-gb",
        "--node-gpu",
        "--max-bytes",
        "--max-rows",
        "--te-max-gpu",
        "--te-max-hours",
        "--compress",
        "--window-start",
        "--max-duration",
    ],
    "generate": ["--seed"],
}
WORKLOAD = "job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\na,0,100,1,8,1,BE\nT,10,50,1,8,1,TE\n"


@given(st.sampled_from([(c, o) for c, opts in NUMERIC_OPTIONS.items() for o in opts]), values)
def test_a_numeric_option_runs_or_is_an_error(command_option: tuple[str, str], text: str) -> None:
    import contextlib
    import io
    import tempfile

    command, option = command_option
    with tempfile.TemporaryDirectory() as folder:
        wl = Path(folder) / "w.csv"
        wl.write_text(WORKLOAD)
        argv = [command, str(wl)] if command == "run" else [command, "--preset", "demo", "--set", "jobs=5"]
        argv += [f"{option}={text}"] + (["--out", str(Path(folder) / "g.csv")] if command == "generate" else [])
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as stop:  # argparse refuses a value with exit 2
                code = stop.code
    assert code in (0, 2) and "Traceback" not in err.getvalue()
    assert code == 0 or "error: " in err.getvalue()


@pytest.mark.parametrize(("page", "keys"), [("explore", EXPLORE_KEYS), ("sweep", SWEEP_KEYS)])
def test_a_page_opens_whatever_its_link_holds(page: str, keys: list[str]) -> None:
    """The page itself (AppTest from the entry point): a fuzzed link shows notices, or the page's
    own error messages (a refusal over a limit, say), never an uncaught error."""

    @settings(max_examples=max(1, settings().max_examples // 20))
    @given(links(keys))
    def opens(query: dict[str, str]) -> None:
        at = AppTest.from_file(APP, default_timeout=120)
        at.query_params.update(query)
        if page != "explore":
            at.switch_page(f"app_pages/{page}.py")
        at.run()
        assert not at.exception, (query, [e.value for e in at.exception])

    opens()
